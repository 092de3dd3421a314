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

# abspath PATH: PATH made absolute against the current directory.
abspath() { if [[ "$1" == /* ]]; then printf '%s' "$1"; else printf '%s/%s' "$PWD" "$1"; fi; }

# Where downloaded tools are kept, one folder per version (the Temporal CLI, FerretDB, Node).
GR_CACHE_DIR="$(abspath "${GR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/governed-runtime}")"

# The Node every script runs on: 24 LTS. One pinned release, fetched from the npm registry
# (the `node-<os>-<arch>` packages carry the official binaries) when PATH has no Node 24 or
# later; docs/dependencies.md, "Node support".
NODE_24_VERSION=24.22.3

# node_platform: this machine as the npm package of Node names it (linux-x64, darwin-arm64).
node_platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) return 1 ;;
  esac
  printf '%s-%s' "$os" "$arch"
}

# install_node_24 PLATFORM DIR: puts node-PLATFORM@NODE_24_VERSION in DIR. Runs in a subshell
# under its own lock, so concurrent scripts install once and a reader never sees a half-made
# DIR: the package is unpacked and checked in a temporary folder beside DIR, then renamed.
install_node_24() (
  local platform="$1" dir="$2" tmp version
  # Called in an `||` list, where errexit is off: every step checks for itself.
  mkdir -p "$GR_CACHE_DIR" || die "cannot create $GR_CACHE_DIR"
  if command -v flock >/dev/null 2>&1; then
    exec 7>"$GR_CACHE_DIR/.node-install.lock"
    flock 7
    # Holding the lock, any temporary folder left is an interrupted install's.
    rm -rf "$GR_CACHE_DIR"/.tmp-node.*
  fi
  [[ -x "$dir/bin/node" ]] && exit 0
  command -v npm >/dev/null 2>&1 || die "Node $NODE_24_VERSION is needed and npm is not on PATH to fetch it; install Node 24 or later"
  tmp="$(mktemp -d "$GR_CACHE_DIR/.tmp-node.XXXXXX")" || die "cannot create a folder in $GR_CACHE_DIR"
  trap 'rm -rf "$tmp"' EXIT
  log "node: fetching Node $NODE_24_VERSION (node-$platform) from the npm registry (~50 MB, once)..." >&2
  # npm pack checks the tarball against the registry's integrity hash.
  (cd "$tmp" && npm pack "node-$platform@$NODE_24_VERSION" --silent >pack.log 2>&1) ||
    die "npm could not fetch node-$platform@$NODE_24_VERSION ($(tail -n 3 "$tmp/pack.log" | tr '\n' ' '));" \
      "install Node 24 or later yourself and put it on PATH"
  tar -xzf "$tmp/node-$platform-$NODE_24_VERSION.tgz" -C "$tmp" || die "cannot unpack node-$platform-$NODE_24_VERSION.tgz"
  version="$("$tmp/package/bin/node" --version 2>&1 || true)"
  [[ "$version" == "v$NODE_24_VERSION" ]] || die "the fetched Node failed verification: ${version:-no output}"
  # Without flock another script may have finished first; its copy is as good as ours.
  if [[ ! -e "$dir" ]]; then
    mv "$tmp/package" "$dir" || die "cannot move the fetched Node into $dir"
  fi
)

# use_node_24: makes `node` (and so npm's and npx's `#!/usr/bin/env node`, and every process
# they start through process.execPath) Node 24 or later for the rest of the calling script
# and its children: PATH's own when it is 24 or later, else the pinned release, installed
# once into the cache and put first on PATH. Says once which Node it is.
use_node_24() {
  local current major platform dir
  current="$(node --version 2>/dev/null || true)"
  major="${current#v}"
  major="${major%%.*}"
  if [[ "$major" =~ ^[0-9]+$ ]] && ((major >= 24)); then
    if [[ "${GR_NODE:-}" != "$(command -v node)" ]]; then
      GR_NODE="$(command -v node)"
      export GR_NODE
      log "node: $current ($GR_NODE)"
    fi
    return 0
  fi
  platform="$(node_platform)" ||
    die "Node 24 or later is needed (PATH has ${current:-none}) and there is no pinned build for $(uname -s) $(uname -m); install it yourself"
  dir="$GR_CACHE_DIR/node-$NODE_24_VERSION-$platform"
  [[ -x "$dir/bin/node" ]] || install_node_24 "$platform" "$dir" || exit 1
  export PATH="$dir/bin:$PATH"
  hash -r
  GR_NODE="$dir/bin/node"
  export GR_NODE
  log "node: v$NODE_24_VERSION ($GR_NODE; PATH had ${current:-no node})"
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
