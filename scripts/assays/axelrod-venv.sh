#!/usr/bin/env bash
# Installs the Python `axelrod` library (the assays' reference) with pip into
# .tools/axelrod-venv (git-ignored), once; prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../.."
AXELROD_VERSION="${AXELROD_VERSION:-4.14.0}"
venv=.tools/axelrod-venv
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv" >&2; fi
if ! "$venv/bin/python" -c "import axelrod, sys; sys.exit(axelrod.__version__ != '$AXELROD_VERSION')" 2>/dev/null; then
  "$venv/bin/pip" install --quiet "axelrod==$AXELROD_VERSION" >&2
fi
echo "$PWD/$venv/bin/python"
