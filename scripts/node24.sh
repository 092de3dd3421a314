#!/usr/bin/env bash
# The Node every script runs on (Node 24 LTS: PATH's own when it is 24 or later, else the
# pinned one, fetched once; scripts/lib/common.sh), for commands typed by hand:
#   bash scripts/node24.sh npx jest test/engines.test.ts    runs the command on it
#   export PATH="$(bash scripts/node24.sh):$PATH"            prints the folder holding it
# Its one line saying which Node it is goes to stderr, so stdout is the command's own.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
use_node_24 >&2
if (($# == 0)); then
  dirname "$(command -v node)"
else
  exec "$@"
fi
