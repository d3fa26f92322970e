#!/usr/bin/env bash
# Install the real coding-agent CLIs (pinned) into .agents/ and run the recipe tests of
# docs/mock-server.md and the examples/agents/ matrix against them (tests/realagents/).
#
#   bash scripts/real-agents.sh                 # install the npm CLIs, run the tests
#   bash scripts/real-agents.sh --with-aider    # also aider (a ~700 MB venv, about 2 minutes)
#   bash scripts/real-agents.sh --install-only  # install, do not run the tests
#   bash scripts/real-agents.sh --matrix        # run the matrix, rewrite its table in docs/agents.md
#   bash scripts/real-agents.sh -- -k codex     # arguments after -- go to pytest
#
# AUTOCUE_AGENTS_DIR picks another folder (default: .agents/ in the repository, gitignored).
# Each CLI gets its own npm prefix, AUTOCUE_AGENTS_DIR/<name>/, and a link in
# AUTOCUE_AGENTS_DIR/bin/, which the tests put first on PATH. A CLI already at its pinned
# version is not installed again. The regular `bash scripts/test.sh` never installs them:
# without them the recipe tests skip, naming the CLI and this script.
source "$(dirname "$0")/_venv.sh"

# name  npm package  version  command
NPM_AGENTS=(
  "claude   @anthropic-ai/claude-code       2.1.197 claude"
  "codex    @openai/codex                   0.169.0 codex"
  "opencode opencode-ai                     1.18.33 opencode"
  "pi       @mariozechner/pi-coding-agent   0.73.1  pi"
  "gemini   @google/gemini-cli              0.61.0  gemini"
)
# ACP adapters (`autocue run --via acp`; gemini and opencode serve ACP themselves), one npm prefix each,
# AUTOCUE_AGENTS_DIR/<cli>-acp/, pinned like the CLIs (the `acp` entries of src/autocue/catalog/clis/*.py)
# name       npm package                              version  command
NPM_ACP=(
  "claude-acp @agentclientprotocol/claude-agent-acp   0.101.0  claude-agent-acp"
  "codex-acp  @zed-industries/codex-acp               0.16.0   codex-acp"
  "pi-acp     pi-acp                                  0.0.24   pi-acp"
)
AIDER_VERSION=0.86.2

with_aider=0
install_only=0
matrix=0
pytest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --with-aider) with_aider=1 ;;
    --install-only) install_only=1 ;;
    --matrix) matrix=1 ;;
    --) shift; pytest_args=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "real-agents.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

AGENTS_DIR="${AUTOCUE_AGENTS_DIR:-$ROOT/.agents}"
mkdir -p "$AGENTS_DIR/bin"
AGENTS_DIR="$(cd "$AGENTS_DIR" && pwd)"
export AUTOCUE_AGENTS_DIR="$AGENTS_DIR"

if ! command -v npm >/dev/null; then
  echo "real-agents.sh: npm is not installed; install Node.js 20+ (e.g. apt-get install nodejs npm)" >&2
  exit 1
fi

for line in "${NPM_AGENTS[@]}" "${NPM_ACP[@]}"; do
  read -r name pkg version cmd <<<"$line"
  prefix="$AGENTS_DIR/$name"
  have="$(node -p "require('$prefix/node_modules/$pkg/package.json').version" 2>/dev/null || true)"
  if [ "$have" != "$version" ]; then
    echo "== installing $pkg@$version into $prefix"
    start=$SECONDS
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$pkg@$version"
    echo "   done in $((SECONDS - start)) s"
  else
    echo "== $pkg@$version already installed"
  fi
  ln -sfn "$prefix/node_modules/.bin/$cmd" "$AGENTS_DIR/bin/$cmd"
done

if [ "$with_aider" = 1 ]; then
  venv="$AGENTS_DIR/aider"
  if [ ! -x "$venv/bin/aider" ] || ! "$venv/bin/python" -m pip show aider-chat 2>/dev/null | grep -qx "Version: $AIDER_VERSION"; then
    echo "== installing aider-chat==$AIDER_VERSION into $venv"
    start=$SECONDS
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "aider-chat==$AIDER_VERSION"
    echo "   done in $((SECONDS - start)) s"
  else
    echo "== aider-chat==$AIDER_VERSION already installed"
  fi
  ln -sfn "$venv/bin/aider" "$AGENTS_DIR/bin/aider"
fi

[ "$install_only" = 1 ] && exit 0

if [ "$matrix" = 1 ]; then
  echo "== the examples/agents matrix (AUTOCUE_AGENTS_DIR=$AGENTS_DIR) -> docs/agents.md"
  exec python "$ROOT/scripts/agents_matrix.py" --write
fi

echo "== recipe tests against the real CLIs (AUTOCUE_AGENTS_DIR=$AGENTS_DIR)"
export PATH="$AGENTS_DIR/bin:$PATH"
exec pytest -p no:cacheprovider -v -rs --durations=0 tests/realagents "${pytest_args[@]}"
