#!/usr/bin/env bash
# Schemathesis for the API fuzzing step (docs/fuzzing.md): a pinned version in its own
# Python venv under .tools/ (git-ignored), installed once with pip; later runs only check
# the version. Prints nothing else on success; SCHEMATHESIS_BIN names the `st` it installed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
SCHEMATHESIS_VERSION="4.32.5"
VENV="$GR_REPO_ROOT/.tools/schemathesis-venv"
ST="$VENV/bin/st"
if [[ -x "$ST" ]] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('schemathesis') != '$SCHEMATHESIS_VERSION')" 2>/dev/null; then
  log "schemathesis: $SCHEMATHESIS_VERSION"
  exit 0
fi
PYTHON="${PYTHON:-$(command -v python3 || true)}"
[[ -n "$PYTHON" ]] || die "schemathesis needs python3 (3.9 or later) with venv and pip"
log "schemathesis: installing $SCHEMATHESIS_VERSION into .tools/schemathesis-venv (once)..."
mkdir -p "$GR_REPO_ROOT/.tools"
[[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" ||
  die "pip could not install schemathesis==$SCHEMATHESIS_VERSION"
log "schemathesis: installed ($("$ST" --version 2>/dev/null || echo "$SCHEMATHESIS_VERSION"))"
