#!/usr/bin/env bash
# The framework matrix: one venv per example under examples/frameworks/<name>/, made with uv in
# .frameworks/<name>/ (gitignored; never the dev venv: the frameworks' pins could clash with ours)
# from autocue (editable) and the example's requirements.txt, then each example's test run with
# its venv's python, one pass/fail line per framework.
#
#   scripts/frameworks.sh                      install what is missing or stale, run every example
#   scripts/frameworks.sh --only a,b           the same for those examples only
#   scripts/frameworks.sh --install a,b|all    install (or refresh) those venvs and stop
#   scripts/frameworks.sh ... -- -x -vv        the arguments after -- go to pytest
#
# A venv is stale when its stamp differs from the hash of requirements.txt and pyproject.toml;
# uv's cache makes a reinstall take seconds. UV is the uv binary (default: the dev venv's).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXAMPLES=examples/frameworks
UV="${UV:-}"
if [ -z "$UV" ]; then
  if [ -x .venv/bin/uv ]; then UV=.venv/bin/uv; else UV="$(command -v uv || true)"; fi
fi
[ -n "$UV" ] || { echo "frameworks.sh: uv not found (pip install uv, or set UV=/path/to/uv)" >&2; exit 2; }
PY="${PYTHON:-python3}"
# The test runner's own plugins, at the dev venv's pins (the timeout keeps a stuck framework from hanging).
RUNNER=$(grep -E '^(pytest|pytest-asyncio|pytest-timeout)==' constraints.txt | tr '\n' ' ')

install="" only="" pytest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --install) install="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --) shift; pytest_args=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "frameworks.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

all_names() { for d in "$EXAMPLES"/*/; do [ -f "$d/requirements.txt" ] && basename "$d"; done; }
names_of() {  # "a,b" or "all" -> one name a line, each checked
  if [ "$1" = all ]; then all_names; return; fi
  local n
  for n in ${1//,/ }; do
    [ -f "$EXAMPLES/$n/requirements.txt" ] || { echo "frameworks.sh: no example $EXAMPLES/$n" >&2; exit 2; }
    echo "$n"
  done
}
stamp_of() { cat "$EXAMPLES/$1/requirements.txt" pyproject.toml | sha256sum | cut -d' ' -f1; }

ensure_venv() {  # make or refresh .frameworks/<name> when its stamp is stale
  local name="$1" venv=".frameworks/$1" want
  want=$(stamp_of "$name")
  if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ]; then return 0; fi
  local t0=$SECONDS
  rm -rf "$venv"
  "$UV" venv -q --python "$PY" "$venv"
  # shellcheck disable=SC2086  # RUNNER is a word list
  VIRTUAL_ENV="$ROOT/$venv" "$UV" pip install -q --python "$venv/bin/python" \
    -e "$ROOT" -r "$EXAMPLES/$name/requirements.txt" $RUNNER
  echo "$want" > "$venv/.stamp"
  echo "installed $name in $((SECONDS - t0)) s ($venv)"
}

if [ -n "$install" ]; then
  names=$(names_of "$install") || exit 2
  for n in $names; do ensure_venv "$n"; done
  exit 0
fi

failed=0
names=$(names_of "${only:-all}") || exit 2
for n in $names; do
  ensure_venv "$n"
  t0=$SECONDS
  if ".frameworks/$n/bin/python" -m pytest -q -p no:cacheprovider "$EXAMPLES/$n" ${pytest_args[@]+"${pytest_args[@]}"} \
      > ".frameworks/$n/last-run.txt" 2>&1; then
    echo "pass  $n  ($((SECONDS - t0)) s)"
  else
    failed=1
    echo "FAIL  $n  ($((SECONDS - t0)) s): .frameworks/$n/last-run.txt"
    tail -n 30 ".frameworks/$n/last-run.txt" | sed 's/^/      /'
  fi
done
exit "$failed"
