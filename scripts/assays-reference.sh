#!/usr/bin/env bash
# Regenerates test/fixtures/assays/axelrod-reference.json from the Python `axelrod` library,
# installed with pip into .tools/axelrod-venv (git-ignored). The tests read the committed file.
set -euo pipefail
cd "$(dirname "$0")/.."
AXELROD_VERSION="${AXELROD_VERSION:-4.14.0}"
venv=.tools/axelrod-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
if ! "$venv/bin/python" -c "import axelrod, sys; sys.exit(axelrod.__version__ != '$AXELROD_VERSION')" 2>/dev/null; then
  "$venv/bin/pip" install --quiet "axelrod==$AXELROD_VERSION"
fi
"$venv/bin/python" scripts/assays/axelrod_reference.py test/fixtures/assays/axelrod-reference.json
