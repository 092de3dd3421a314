#!/usr/bin/env bash
# Benchmarks (`npm run bench [suite...]`): builds, starts its own FerretDB and Temporal on
# bench ports (data under .data/bench), runs the suites, writes bench/results/, stops.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
bash scripts/ensure-deps.sh
# BENCH_PORT_BASE (default 0) shifts the servers' ports, so two checkouts can bench at once.
shift_by="${BENCH_PORT_BASE:-0}"
export GR_DATA_DIR="$GR_REPO_ROOT/.data/bench" FERRETDB_PORT=$((27019 + shift_by)) \
  TEMPORAL_PORT=$((17234 + shift_by)) TEMPORAL_UI_PORT=$((18234 + shift_by))
export BENCH_MONGODB_URI="mongodb://127.0.0.1:$FERRETDB_PORT/" BENCH_TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
# Every run starts on fresh databases: the servers' costs grow with what earlier runs stored
# (docs/performance.md), so figures from runs on accumulated data do not compare.
# BENCH_KEEP_DATA=1 keeps it; servers already running (started by hand) keep theirs.
servers_now="$(bash scripts/servers.sh status 2>/dev/null || true)"
if [[ "${BENCH_KEEP_DATA:-0}" != 1 && "$servers_now" != *": running"* ]]; then
  rm -rf "$GR_DATA_DIR/ferretdb" "$GR_DATA_DIR/temporal"
  log "bench: fresh databases under $GR_DATA_DIR (BENCH_KEEP_DATA=1 keeps them)"
fi
bash scripts/servers.sh start
trap 'bash scripts/servers.sh stop' EXIT
node dist/bench/run.js "$@"
