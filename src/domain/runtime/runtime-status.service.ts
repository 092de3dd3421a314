import type { DomainInfra } from '../infra';
import { Unavailable } from '../../lib/errors';
import { API_VERSION } from '../../lib/version';

/** The runtime's status from its durable record plus this process's uptime. */
export async function getRuntimeStatus(deps: Pick<DomainInfra, 'repos' | 'startedAt'>) {
  const runtime = await deps.repos.runtime.get();
  if (!runtime) throw new Unavailable('runtime record not initialised yet');
  return {
    state: 'active',
    runtime_id: runtime.runtime_id,
    identity_digest: runtime.identity_digest,
    created_at: runtime.created_at,
    version: API_VERSION,
    uptime_seconds: Math.round((Date.now() - deps.startedAt.getTime()) / 1000),
  };
}
