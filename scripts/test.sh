#!/usr/bin/env bash
# Install everything the suite needs into .venv, then run ruff, mypy (strict on src/) and pytest.
source "$(dirname "$0")/_venv.sh"
# The viewer's browser tests use Debian's Chromium, the sandbox tests bubblewrap: installed with apt when we may
# (root), else they skip.
source "$ROOT/scripts/_chromium.sh"
ensure_chromium
ensure_bubblewrap
echo "== ruff"; ruff check --no-cache src tests benchmarks examples
echo "== mypy"; mypy
# The framework matrix's examples each in their own venv (.frameworks/, never .venv: the frameworks'
# pins could clash with ours); tests/frameworks runs them and skips those not installed.
echo "== frameworks"; bash scripts/frameworks.sh --install pydantic-ai,openai-agents,langgraph,llama-index
echo "== pytest"
set +e
pytest -n auto -q -p no:cacheprovider "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "pytest collected no tests: failing on purpose (an empty suite proves nothing)" >&2
  exit 1
fi
exit "$code"
