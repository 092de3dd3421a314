#!/usr/bin/env bash
# Stops the api, the worker and the local servers started by scripts/start.sh: every api
# and worker process this checkout's `npm start` started (found by the mark in their
# environment, not only by the last pid files), then the servers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
RUN_DIR="$GR_REPO_ROOT/.data/run"
hold_start_lock "$RUN_DIR"
for name in api worker; do
  if [[ -f "$RUN_DIR/$name.pid" || -n "$(started_pids "$name")" ]]; then
    stop_started "$name" "$RUN_DIR"
    log "$name stopped"
  fi
done
bash "$GR_REPO_ROOT/scripts/servers.sh" stop
