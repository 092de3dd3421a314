import type { DomainInfra } from '../infra';
import type { AuditFilter, AuditRow } from '../../store/audit.repo';
import { timelinePage } from './timeline-page';

export type AuditListQuery = AuditFilter & { limit?: number; cursor?: string };

const auditView = (row: AuditRow) => ({
  audit_id: row._id,
  at: row.at,
  // Rows written before public actors were null name them `public`.
  actor: { ...row.actor, key_id: row.actor.key_id === 'public' ? null : row.actor.key_id },
  action: row.action,
  target: row.target,
  before: row.before,
  after: row.after,
  request_id: row.request_id,
});

/** `GET /v1/admin/audit`: control-plane changes newest first; cursor (`at`, `audit_id`). */
export function listAudit(deps: Pick<DomainInfra, 'repos'>, query: AuditListQuery) {
  return timelinePage(query, (...page) => deps.repos.audit.list(...page), auditView);
}
