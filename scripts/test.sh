#!/usr/bin/env bash
# The whole test suite: types, lint and the Go test of our FerretDB build (beside the
# tests), and both jest tiers in one run (jest.config.js): the unit tier without servers,
# and the integration tier (`*.int.test.ts`) against real FerretDB and Temporal (started on
# test ports by its global setup, stopped at the end).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
bash scripts/ensure-deps.sh
bash scripts/ensure-browser.sh
bash scripts/ensure-schemathesis.sh
# The static checks run beside the tests: the integration tier spends much of its time
# waiting on servers and timers, so the two overlap on two cores; their output and status
# come at the end. A failing check fails the run as a failing test does.
static_log="$GR_REPO_ROOT/.data/static-checks.log"
mkdir -p "$(dirname "$static_log")"
(
  set -e
  log "== typecheck"
  npx tsc -p tsconfig.json --noEmit
  log "== lint"
  npx eslint .
  npx depcruise src --config .dependency-cruiser.cjs --output-type err
  npx prettier --check . --log-level warn
  log "== go test (tools/ferretdb: our FerretDB's logging handler)"
  (cd tools/ferretdb && go test ./...)
) >"$static_log" 2>&1 &
static_checks=$!
log "== tests (unit and integration tiers)"
results="$GR_REPO_ROOT/.data/jest-results.json"
mkdir -p "$(dirname "$results")"
status=0
rm -rf .data/test/response-coverage .data/test/status-coverage
npx jest --ci --json --outputFile="$results" "$@" || status=$?
log "== typecheck, lint, go test (run beside the tests)"
static_status=0
wait "$static_checks" || static_status=$?
cat "$static_log"
if ((static_status != 0)); then
  log "static checks failed (exit $static_status)"
  status=1
fi
# Every built route's 2xx was checked against its response schema (whole runs only).
if [[ $# -eq 0 ]]; then node scripts/check-response-coverage.js || status=1; fi
# The plain closing line CI reads (both tiers), whatever the runner printed.
node -e 'const r = require(process.argv[1]); console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`)' "$results" || true
exit "$status"
