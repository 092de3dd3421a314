#!/usr/bin/env bash
# Starts the whole service and waits until it is ready:
#   - with MONGODB_URI / TEMPORAL_ADDRESS unset, local FerretDB / Temporal dev servers
#     (scripts/servers.sh), data under .data/;
#   - the worker and the api (built from source when needed), logs under .data/logs/.
# Prints the console, API, docs and Temporal UI URLs and a working operator key. Idempotent:
# running it again restarts the api and worker on the current build.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$GR_REPO_ROOT"

DATA_DIR="$GR_REPO_ROOT/.data"
RUN_DIR="$DATA_DIR/run"
LOG_DIR="$DATA_DIR/logs"
SECRETS="$DATA_DIR/secrets.env"
mkdir -p "$RUN_DIR" "$LOG_DIR"
hold_start_lock "$RUN_DIR"
use_node_24

bash scripts/ensure-deps.sh

# Local servers for whatever is not configured externally.
if [[ -z "${MONGODB_URI:-}" || -z "${TEMPORAL_ADDRESS:-}" ]]; then
  bash scripts/servers.sh start
fi
export MONGODB_URI="${MONGODB_URI:-mongodb://127.0.0.1:${FERRETDB_PORT:-27017}/governed_runtime}"
export TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:${TEMPORAL_PORT:-7233}}"
export TEMPORAL_UI_URL="${TEMPORAL_UI_URL:-http://127.0.0.1:${TEMPORAL_UI_PORT:-8233}}"

# Secrets of the embedded default: generated once, kept under .data/ (git-ignored).
if [[ ! -f "$SECRETS" ]]; then
  umask 077
  node -e '
    const { randomBytes } = require("node:crypto");
    const { mintApiKey } = require("./dist/src/auth/api-key");
    console.log("KEY_PEPPER=" + randomBytes(32).toString("hex"));
    console.log("ADMIN_API_KEY=" + mintApiKey(randomBytes(6).toString("hex")));
    console.log("DECISION_SIGNING_KEY=" + randomBytes(32).toString("hex"));
    console.log("LEDGER_SEAL_KEY=" + randomBytes(32).toString("hex"));
  ' >"$SECRETS.tmp"
  mv "$SECRETS.tmp" "$SECRETS"
fi
# A secrets file from before the ledger was sealed gets its key once (docs/actions.md).
if ! grep -q '^LEDGER_SEAL_KEY=' "$SECRETS"; then
  (
    umask 077
    node -e 'console.log("LEDGER_SEAL_KEY=" + require("node:crypto").randomBytes(32).toString("hex"))' >>"$SECRETS"
  )
fi
# Values from the environment win over the generated ones.
while IFS='=' read -r name value; do
  [[ -n "$name" && -z "${!name:-}" ]] && export "$name=$value"
done <"$SECRETS"

start_process() {
  local name="$1" script="$2"
  stop_started "$name" "$RUN_DIR"
  GR_STARTED_BY="$(started_mark "$name")" nohup setsid node "$script" >>"$LOG_DIR/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN_DIR/$name.pid"
}

start_process worker dist/src/worker.js
start_process api dist/src/main.js

PORT="${PORT:-8080}"
HOST_ADDR="${HOST:-127.0.0.1}"
API_URL="http://${HOST_ADDR}:${PORT}"
deadline=$((SECONDS + 90))
until curl -fsS "$API_URL/readyz" >/dev/null 2>&1; do
  if ! pid_alive "$(cat "$RUN_DIR/api.pid")"; then
    tail -n 20 "$LOG_DIR/api.log" >&2
    die "the api exited; see $LOG_DIR/api.log"
  fi
  if ! pid_alive "$(cat "$RUN_DIR/worker.pid")"; then
    tail -n 20 "$LOG_DIR/worker.log" >&2
    die "the worker exited; see $LOG_DIR/worker.log"
  fi
  if ((SECONDS > deadline)); then
    curl -sS "$API_URL/readyz" >&2 || true
    die "not ready after 90 s; see $LOG_DIR/api.log and $LOG_DIR/worker.log"
  fi
  sleep 0.5
done

# The console's address as the api names it (PUBLIC_BASE_URL; by default http://localhost:PORT,
# a host name passkeys can belong to, where an IP address cannot).
CONSOLE_URL="$(curl -fsS "$API_URL/" | node -e '
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => console.log(JSON.parse(text).links.console ?? ""));
' 2>/dev/null || true)"
CONSOLE_URL="${CONSOLE_URL:-$API_URL/console}"

# A store written before records were sealed refuses its own keys until the operator seals it
# once (docs/operations.md, "Upgrading a store written before sealing"): say so here.
if curl -sS -H "X-API-Key: $ADMIN_API_KEY" "$API_URL/v1/principals/me" 2>/dev/null | grep -q 'integrity check'; then
  log "this store was written before records were sealed: its keys are refused until it is sealed once:"
  log "  npm run stop && bash scripts/servers.sh start && (set -a; . .data/secrets.env; npm run seal-records) && npm start"
fi

cat <<TXT

Governed Runtime is ready.
  Console        $CONSOLE_URL   (approvals: sign in with an API key; passkeys work here)
  API            $API_URL
  API docs       $API_URL/docs
  OpenAPI        $API_URL/openapi.json
  Temporal UI    $TEMPORAL_UI_URL
  Operator key   $ADMIN_API_KEY

  Try:   curl -H "X-API-Key: $ADMIN_API_KEY" $API_URL/v1/runtime/status
  Logs:  $LOG_DIR/     Stop: npm run stop
TXT
