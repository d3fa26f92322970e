# Sourced by the other scripts: make .venv with autocue and its dev tools installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.autocue-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ constraints.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  # constraints.txt pins every dependency (scripts/freeze_constraints.py writes it), so a new
  # release upstream cannot break a run.
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt -e ".[dev]"
  touch "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"
