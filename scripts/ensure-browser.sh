#!/usr/bin/env bash
# Debian's Chromium for the console's browser test (docs/console.md): installed once per
# machine with apt when missing and we may; otherwise the test skips and says why.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
BROWSER="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [[ -x "$BROWSER" ]]; then
  log "chromium: $("$BROWSER" --version 2>/dev/null || echo present)"
  exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
  log "chromium: not installed and cannot install it here (needs root and apt); the console browser test will skip"
  exit 0
fi
log "chromium: installing Debian's package (once per machine)..."
export DEBIAN_FRONTEND=noninteractive
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
  log "chromium: installed ($("$BROWSER" --version 2>/dev/null || echo "$BROWSER"))"
else
  log "chromium: apt could not install it; the console browser test will skip"
fi
