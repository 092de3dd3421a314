#!/usr/bin/env bash
# Stops the api, the worker and the local servers started by scripts/start.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
RUN_DIR="$GR_REPO_ROOT/.data/run"
for name in api worker; do
  pid_file="$RUN_DIR/$name.pid"
  [[ -f "$pid_file" ]] || continue
  pid="$(cat "$pid_file")"
  if pid_alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do pid_alive "$pid" || break; sleep 0.1; done
    pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
    log "$name stopped"
  fi
  rm -f "$pid_file"
done
bash "$GR_REPO_ROOT/scripts/servers.sh" stop
