import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';

export interface AuditChange {
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** Records a control-plane change made by `auth` (views only: never a secret or hash). */
export async function audit(
  deps: Pick<AppDeps, 'repos'>,
  auth: AuthContext,
  requestId: string,
  change: AuditChange,
) {
  await deps.repos.audit.record({
    at: new Date().toISOString(),
    actor: { key_id: auth.keyId, principal_id: auth.principalId },
    request_id: requestId,
    ...change,
  });
}
