#!/usr/bin/env bash
# Regenerates test/fixtures/assays/axelrod-reference.json from the Python `axelrod` library,
# installed with pip into .tools/axelrod-venv (git-ignored). The tests read the committed file.
set -euo pipefail
cd "$(dirname "$0")/.."
python="$(bash scripts/assays/axelrod-venv.sh)"
"$python" scripts/assays/axelrod_reference.py test/fixtures/assays/axelrod-reference.json
