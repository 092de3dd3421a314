#!/usr/bin/env bash
# Benchmarks (`npm run bench [suite...]`): builds, starts its own FerretDB and Temporal on
# bench ports (data under .data/bench), runs the suites, writes bench/results/, stops.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
bash scripts/ensure-deps.sh
export GR_DATA_DIR="$GR_REPO_ROOT/.data/bench" FERRETDB_PORT=27019 TEMPORAL_PORT=17234 TEMPORAL_UI_PORT=18234
bash scripts/servers.sh start
trap 'bash scripts/servers.sh stop' EXIT
node dist/bench/run.js "$@"
