/**
 * Operations readouts: the schemas of their queries and of the prune body (docs/operations.md). Request types are derived from the schemas.
 */
import type { Static } from '@sinclair/typebox';
import { keyId, organizationId, principalId } from '../governance/schemas';
import * as schema from '../../lib/schema';
import { ledgerCursor, timeCursor } from '../../lib/cursor';

/** Rollup periods of usage readouts. */
export const granularity = schema.choice(['hour', 'day'], 'Rollup period.', 'day');

/** Query of `admin.audit.list`. */
export const auditQuery = schema.pagedQuery(timeCursor.schema, {
  key_id: keyId('Only changes made with this key.'),
  principal_id: principalId('Only changes made by this principal.'),
  action: schema.patterned(
    'Only this action, e.g. `keys.create`.',
    '^[a-z][A-Za-z0-9_.]{0,63}$',
    64,
  ),
  target_id: schema.patterned('Only changes to this record.', '^[A-Za-z0-9_.:-]{1,128}$', 128),
  since: schema.sinceParam,
  until: schema.untilParam,
});
export type AuditQuery = Static<typeof auditQuery>;

/** Body of `admin.pruneLedgers`: a real prune (not `dry_run`) needs `confirm`. */
const pruneLedgersFields = schema.closedObject(
  {
    older_than: schema.dateTime('Delete rows older than this instant (ISO 8601 UTC).'),
    dry_run: schema.flag('Only count the rows that would be deleted.', false),
    confirm: schema.choice(
      ['delete'],
      'Required for a real prune (`dry_run` false): `"delete"`, saying the caller means it.',
    ),
  },
  ['older_than'],
);
export const pruneLedgersBody = schema.withRules(pruneLedgersFields, [
  schema.when(
    { not: { properties: { dry_run: { const: true } }, required: ['dry_run'] } },
    { required: ['confirm'] },
    'a real prune needs confirm: "delete" (or dry_run: true)',
  ),
]);
export type PruneLedgersBody = Static<typeof pruneLedgersBody>;

/** Query of `admin.requests.list`. */
export const requestLedgerQuery = schema.pagedQuery(ledgerCursor.schema, {
  key_id: keyId('Only requests made with this key.'),
  status: schema.integer('Only requests answered with this HTTP status.', 100, 599),
  route: schema.text('Only this route template, e.g. `/v1/sessions/{session_id}`.', 256),
  since: schema.sinceParam,
  until: schema.untilParam,
});
export type RequestLedgerQuery = Static<typeof requestLedgerQuery>;

/** Query of `admin.serviceEvents.list`. */
export const serviceEventQuery = schema.pagedQuery(timeCursor.schema, {
  kind: schema.patterned(
    'Only events of this kind, e.g. `backend.down`.',
    '^[a-z][a-z0-9_.]{0,63}$',
    64,
  ),
  level: schema.choice(['info', 'warn', 'error'], 'Only events of this level.'),
  since: schema.sinceParam,
  until: schema.untilParam,
});
export type ServiceEventQuery = Static<typeof serviceEventQuery>;

/** Query of `admin.usage.list`. */
export const usageQuery = schema.pagedQuery(timeCursor.schema, {
  key_id: keyId('Only this key.'),
  organization_id: organizationId('Only keys of this organization.'),
  granularity,
  since: schema.sinceParam,
  until: schema.untilParam,
});
export type UsageQuery = Static<typeof usageQuery>;

/** Query of `admin.usage.get`. */
export const keyUsageQuery = schema.filterQuery({
  granularity,
  since: schema.sinceParam,
  until: schema.untilParam,
});
export type KeyUsageQuery = Static<typeof keyUsageQuery>;
