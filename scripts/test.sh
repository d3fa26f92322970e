#!/usr/bin/env bash
# Install everything the suite needs into .venv, then run ruff, mypy (strict on src/) and pytest.
source "$(dirname "$0")/_venv.sh"
# The viewer's browser tests use Debian's Chromium: installed with apt when we may (root), else they skip.
source "$ROOT/scripts/_chromium.sh"
ensure_chromium
echo "== ruff"; ruff check --no-cache src tests benchmarks examples
echo "== mypy"; mypy
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
