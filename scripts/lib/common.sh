# Shared helpers for scripts/*.sh. Source it; do not execute it.
# shellcheck shell=bash

# Repository root: two levels above this file (scripts/lib/common.sh).
GR_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export GR_REPO_ROOT

log() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# port_open PORT [HOST]: true if HOST:PORT accepts a TCP connection.
port_open() {
  local port="$1" host="${2:-127.0.0.1}"
  if command -v timeout >/dev/null 2>&1; then
    timeout 2 bash -c "exec 3<>/dev/tcp/${host}/${port}" 2>/dev/null
  else
    bash -c "exec 3<>/dev/tcp/${host}/${port}" 2>/dev/null
  fi
}

# wait_for_port PORT TIMEOUT_SECONDS [HOST]: poll until the port accepts connections.
wait_for_port() {
  local port="$1" timeout="$2" host="${3:-127.0.0.1}" deadline
  deadline=$((SECONDS + timeout))
  until port_open "$port" "$host"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# pid_alive PID: true if the process exists.
pid_alive() {
  [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null
}

# sha256_of FILE...: sha256 hex of the concatenated files.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    cat "$@" | sha256sum | cut -d' ' -f1
  else
    cat "$@" | shasum -a 256 | cut -d' ' -f1
  fi
}

# The mark `npm start` puts in the environment of the api and worker it starts
# (`GR_STARTED_BY=<repo>:<name>`), so `npm run stop` finds every one of them, not only the
# last pid files (an interrupted start once left a second worker polling).
started_mark() { printf '%s:%s' "$GR_REPO_ROOT" "$1"; }

# started_pids NAME: pids of live processes this checkout's `npm start` started as NAME.
started_pids() {
  local mark pid
  mark="GR_STARTED_BY=$(started_mark "$1")"
  for pid in $(pgrep -x node 2>/dev/null || true); do
    if [[ -r "/proc/$pid/environ" ]] && tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "$mark"; then
      printf '%s\n' "$pid"
    fi
  done
}

# stop_started NAME RUN_DIR: stops every process started as NAME (the pid file's and every
# marked one): SIGTERM, then SIGKILL after 15 s.
stop_started() {
  local name="$1" pid_file="$2/$1.pid" pids pid
  pids="$( (cat "$pid_file" 2>/dev/null || true; started_pids "$name") | sort -u)"
  for pid in $pids; do pid_alive "$pid" && kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 150); do
    local alive=0
    for pid in $pids; do pid_alive "$pid" && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for pid in $pids; do pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null || true; done
  rm -f "$pid_file"
}

# hold_start_lock RUN_DIR: one start or stop of this checkout at a time (fd 9; waits up to
# 5 minutes). Processes started under it get `9>&-`, so none of them keeps the lock.
hold_start_lock() {
  command -v flock >/dev/null 2>&1 || return 0
  mkdir -p "$1"
  exec 9>"$1/start.lock"
  flock -w 300 9 || die "another npm start or stop of this checkout is still running"
}
