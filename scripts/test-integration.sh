#!/usr/bin/env bash
# The integration tier alone (`npm run test:integration -- [jest arguments]`): the files named
# `*.int.test.ts`, against real FerretDB and Temporal (started on test ports by the jest global
# setup unless TEST_MONGODB_URI / TEST_TEMPORAL_ADDRESS name running ones), the built dist,
# Chromium and schemathesis, which this installs or builds first when missing or stale.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
bash scripts/ensure-deps.sh
bash scripts/ensure-browser.sh
bash scripts/ensure-schemathesis.sh
npx jest --selectProjects integration "$@"
