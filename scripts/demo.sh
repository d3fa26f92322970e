#!/usr/bin/env bash
# Install autocue into .venv and run the demo: example playbook tests and scenarios, with a summary.
source "$(dirname "$0")/_venv.sh"
exec autocue demo "$@"
