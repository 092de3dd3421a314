#!/usr/bin/env bash
# Installs npm dependencies when missing or stale, and builds dist/ when sources changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log "installing npm dependencies"
  # Not `npm ci`: the registry here lacks some other platforms' optional packages, which
  # npm omits from the lock file and `npm ci` then refuses; `npm install` keeps the locked
  # versions of everything present.
  npm install --no-audit --no-fund --loglevel=error
fi
if [[ ! -f dist/src/main.js ]] || [[ -n "$(find src bench tsconfig.json tsconfig.build.json package.json -newer dist/src/main.js -print -quit 2>/dev/null)" ]]; then
  log "building"
  rm -rf dist
  npx tsc -p tsconfig.build.json
fi
# The typed client and `gr` (packages/client/dist; `npx gr` runs it).
if [[ ! -f packages/client/dist/cli/main.js ]] || [[ -n "$(find packages/client/src packages/client/package.json packages/client/tsconfig.json -newer packages/client/dist/cli/main.js -print -quit 2>/dev/null)" ]]; then
  log "building the client and gr"
  npm run build -w packages/client --silent
fi
