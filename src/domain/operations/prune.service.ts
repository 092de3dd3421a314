import { invalidAt } from '../../lib/errors';
import type { DomainInfra } from '../infra';
import type { AuthContext } from '../../auth/auth-context';
import { audit } from '../governance/audit';
import { normalizeInstant, periodKey } from './periods';
import type { PruneLedgersBody } from './schemas';

type Deps = Pick<DomainInfra, 'config' | 'repos'>;

const DAY_MS = 86_400_000;

/**
 * `POST /v1/admin/prune-ledgers`: deletes what is older than `older_than`, per ledger:
 * - request ledger: buckets whose every row is older (a bucket straddling the cut-off is
 *   kept whole); the count is of rows;
 * - usage rollups: rollups of UTC hours that ended at or before the cut-off;
 * - service events: events older than the cut-off;
 * - audit: rows older than the cut-off AND older than the retention floor
 *   (now − `AUDIT_RETENTION_DAYS`): a row younger than the floor is never deleted.
 * `dry_run` counts the same sets and deletes nothing (and writes no audit row); a real
 * prune writes one audit row (`ledgers.prune`) with what it deleted. Refused (422): a real
 * prune without `confirm: "delete"`, and a cut-off younger than `LEDGER_MIN_RETENTION_DAYS`
 * (default 7) ago: found by fuzzing, a timestamp copied from an answer deleted the day's
 * request ledger.
 */
export async function pruneLedgers(
  deps: Deps,
  auth: AuthContext,
  requestId: string,
  body: PruneLedgersBody,
) {
  const nowMs = Date.now();
  const cutoff = normalizeInstant(body.older_than);
  const youngest = nowMs - deps.config.ledgerMinRetentionDays * DAY_MS;
  if (Date.parse(cutoff) > youngest) {
    throw invalidAt(
      ['body', 'older_than'],
      `older_than must be at least ${deps.config.ledgerMinRetentionDays} day(s) ago (LEDGER_MIN_RETENTION_DAYS): at or before ${new Date(youngest).toISOString()}`,
    );
  }
  if (!body.dry_run && body.confirm !== 'delete') {
    throw invalidAt(['body', 'confirm'], 'a real prune needs confirm: "delete" (or dry_run: true)');
  }
  const floor = new Date(nowMs - deps.config.auditRetentionDays * DAY_MS).toISOString();
  const auditCutoff = cutoff < floor ? cutoff : floor;
  const rollupHour = periodKey(Date.parse(cutoff), 'hour');
  const { repos } = deps;
  const dryRun = body.dry_run ?? false;

  const [requests, usageRollups, serviceEvents, auditRows] = dryRun
    ? await Promise.all([
        repos.requestLedger.countRowsOlderThan(cutoff),
        repos.usageRollups.countBeforeHour(rollupHour),
        repos.serviceEvents.countOlderThan(cutoff),
        repos.audit.countOlderThan(auditCutoff),
      ])
    : await Promise.all([
        repos.requestLedger.deleteOlderThan(cutoff),
        repos.usageRollups.deleteBeforeHour(rollupHour),
        repos.serviceEvents.deleteOlderThan(cutoff),
        repos.audit.deleteOlderThan(auditCutoff),
      ]);
  const result = {
    dry_run: dryRun,
    older_than: cutoff,
    audit_floor: floor,
    deleted: {
      requests: requests.rows,
      request_buckets: requests.buckets,
      usage_rollups: usageRollups,
      service_events: serviceEvents,
      audit: auditRows,
    },
  };
  if (!dryRun) {
    await audit(deps, auth, requestId, {
      action: 'ledgers.prune',
      target: { type: 'ledgers', id: cutoff },
      before: null,
      after: result,
    });
  }
  return result;
}
