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
