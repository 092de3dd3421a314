"""Schemathesis hooks of test/api/fuzz.int.test.ts (docs/fuzzing.md), loaded through
SCHEMATHESIS_HOOKS.

1. The run's own keys stay valid for the whole run. An operator pass may suspend, revoke,
   rotate or throttle any key, principal, organization or policy it can name (stateful
   links and generated values reach real ids), including the ones the two passes run with;
   then every later answer is 401 and the rest of the run tests nothing. Just before each
   call, a protected id (GR_FUZZ_PROTECTED: {"ids": [...]}) anywhere in the body of an
   operation that changes a status, rotates a key or scopes a quota policy is replaced by an
   id of the same shape that names nothing, so that call is a 404 instead. Nothing else is
   changed: every other value still reaches the server.
2. Each answer's status is appended, per operationId, to GR_FUZZ_STATUS_LOG (JSON lines),
   with whether the request carried the run's own key (GR_FUZZ_KEY; the coverage phase
   also sends requests without it, on purpose) and, for a 401, the server's reason. The
   test fails when the run's own key was refused (it stopped working) and when an
   operation the key may call answered only 401/403.
3. Generated query strings stay under the HTTP server's limit. Node answers a request line
   plus headers over 16 KiB with a bare 431 before the app sees the request. The document
   bounds every query value (maxLength, maxItems: test/api/openapi.int.test.ts keeps the
   longest valid query under 12 KiB), but negative cases break those bounds, and a
   character outside ASCII is up to 12 bytes once percent-encoded; such a query (over
   8 KiB encoded) tests Node's limit, not the API, and is not sent.
"""

import json
import os
from urllib.parse import urlencode

import schemathesis

_PROTECTED = set(json.loads(os.environ.get("GR_FUZZ_PROTECTED") or '{"ids": []}')["ids"])
_STATUS_LOG = os.environ.get("GR_FUZZ_STATUS_LOG")
_OWN_KEY = os.environ.get("GR_FUZZ_KEY")
# Encoded query bytes a generated case may use (the request line and headers share 16 KiB).
_QUERY_BUDGET = 8 * 1024

# Operations that can take a key out of service (or throttle it) when they name it, its
# principal, its organization or the quota policy that lifts its limits.
_GUARDED = {
    "admin.keys.setStatus",
    "admin.keys.rotate",
    "admin.principals.setStatus",
    "admin.organizations.setStatus",
    "admin.policies.setStatus",
    "admin.policies.create",
}


def _decoy(value: str) -> str:
    """An id of the same shape as `value` that no record has."""
    if "_" in value:
        prefix, rest = value.split("_", 1)
        return f"{prefix}_{'0' * len(rest)}"
    return "0" * len(value)


def _replace(value):
    if isinstance(value, str) and value in _PROTECTED:
        return _decoy(value)
    if isinstance(value, dict):
        return {key: _replace(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item) for item in value]
    return value


def _operation_id(case) -> str:
    raw = case.operation.definition.raw
    return raw.get("operationId", case.operation.label) if isinstance(raw, dict) else ""


@schemathesis.hook
def filter_query(context, query):
    if not isinstance(query, dict):
        return True
    try:
        return len(urlencode(query, doseq=True)) <= _QUERY_BUDGET
    except Exception:  # noqa: BLE001 - a value urlencode cannot take is left to the run
        return True


@schemathesis.hook
def before_call(context, case, kwargs):
    if _PROTECTED and _operation_id(case) in _GUARDED and isinstance(case.body, dict):
        case.body = _replace(case.body)


@schemathesis.hook
def after_call(context, case, response):
    if not _STATUS_LOG:
        return
    row = {
        "operation": _operation_id(case),
        "status": response.status_code,
        "own_key": _OWN_KEY is not None and response.request.headers.get("X-API-Key") == _OWN_KEY,
    }
    if response.status_code == 401:
        try:
            row["reason"] = response.json()["error"]["message"]
        except Exception:  # noqa: BLE001 - any unreadable answer is reported as it is
            row["reason"] = response.text[:200]
    with open(_STATUS_LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(row))
        log.write("\n")
