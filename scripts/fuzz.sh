#!/usr/bin/env bash
# The larger fuzzing pass (docs/fuzzing.md): schemathesis against a test instance with the
# operator and a strategic key, more examples per operation and the stateful phase (the
# OpenAPI links), for FUZZ_MAX_TIME seconds per key (default 600). FerretDB and Temporal are
# started on test ports by the jest global setup, as in `npm test`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"
use_node_24
bash scripts/ensure-deps.sh
bash scripts/ensure-schemathesis.sh
FUZZ_PROFILE=full npx jest --ci test/api/fuzz.int.test.ts "$@"
