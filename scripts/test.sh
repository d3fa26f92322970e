#!/usr/bin/env bash
# Install everything the suite needs into .venv, then run ruff, mypy (strict on src/) and pytest.
source "$(dirname "$0")/_venv.sh"
# The viewer's browser tests use Debian's Chromium: install it when we may (root + apt), else they skip.
if [ ! -x /usr/bin/chromium ] && [ "${AUTOCUE_NO_CHROMIUM:-}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== chromium (apt, for tests/view)"
  { apt-get install -y -qq chromium || { apt-get update -qq && apt-get install -y -qq chromium; }; } >/dev/null 2>&1 \
    || echo "   could not install chromium: the browser tests will be skipped"
fi
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
