#!/usr/bin/env bash
# `npm run chaos [seconds]`: 2 api and 2 worker processes on their own FerretDB and Temporal
# (data under .data/chaos, ports 27021/17236), loaded while a worker, an api, Temporal and
# FerretDB are SIGKILLed in turn; verifies nothing was lost or duplicated and writes
# bench/results/chaos.{md,json}. Local only; stops by itself (default 240 s of load).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
bash scripts/ensure-deps.sh
node dist/bench/chaos/run.js "$@"
