import type { Repos } from '../../store';
import type { Principal } from '../../store/principals.repo';
import { newId } from '../../lib/ids';
import { issueKey } from '../governance/keys.service';

export interface ScenarioPrincipalDeps {
  repos: Pick<Repos, 'apiKeys' | 'organizations' | 'principals'>;
  keyPepper: string;
}

/** The organization scenario principals belong to (operators can list and suspend them). */
export const SCENARIOS_ORGANIZATION = 'scenarios';
/** A run's keys expire after this even if the run never gets to revoke them. */
const KEY_LIFETIME_MS = 2 * 3_600_000;

export type ScenarioRole = 'proposer' | 'approver';

/**
 * The run's own two principals (one per role, found again by their e-mail on a retry) and a
 * fresh strategic layer-2 key for each, labelled with the run; `revoke` ends the keys.
 */
export async function scenarioPrincipals(deps: ScenarioPrincipalDeps, runId: string) {
  const now = new Date().toISOString();
  const organization = await deps.repos.organizations.ensure(SCENARIOS_ORGANIZATION, now);
  const keys = {} as Record<ScenarioRole, { apiKey: string; keyId: string; principalId: string }>;
  for (const role of ['proposer', 'approver'] as const) {
    const email = `${runId}-${role}@scenarios.invalid`;
    const principal: Principal =
      (await deps.repos.principals.findByEmail(email)) ??
      (await deps.repos.principals.insert({
        _id: newId('prn'),
        name: `scenario ${runId} ${role}`,
        email,
        email_key: email.toLowerCase(),
        organization_id: organization._id,
        role: 'member',
        status: 'active',
        created_at: now,
        updated_at: now,
      }));
    const issued = await issueKey(
      { repos: deps.repos, config: { keyPepper: deps.keyPepper } },
      {
        principal,
        entitlement: 'strategic',
        accessLayer: 2,
        label: `scenario:${runId} ${role}`,
        expiresAt: new Date(Date.now() + KEY_LIFETIME_MS).toISOString(),
      },
    );
    keys[role] = { apiKey: issued.apiKey, keyId: issued.record._id, principalId: principal._id };
  }
  return {
    keys,
    async revoke(): Promise<void> {
      const at = new Date().toISOString();
      for (const key of Object.values(keys))
        await deps.repos.apiKeys.setStatus(key.keyId, 'revoked', at);
    },
  };
}
