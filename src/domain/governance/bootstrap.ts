import type { DomainInfra } from '../infra';
import { hashApiKey } from '../../auth/api-key';
import { bootstrapKeyId } from '../../auth/authenticator';
import { newId } from '../../lib/ids';
import { isDuplicateKey } from '../../store/mongo';
import { OPERATORS_ORGANIZATION, SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import type { Principal } from '../../store/principals.repo';
import { seedDemoWorld } from '../world/demo-world';

const BOOTSTRAP_EMAIL = 'bootstrap-operator@governed-runtime.invalid';

/**
 * Records every installation needs, written idempotently at each boot (several instances may
 * race): the runtime record, the sandbox and operators organizations and, when ADMIN_API_KEY
 * is set, the bootstrap operator and its key (stored hashed like any other key).
 */
export async function ensureSystemRecords(
  deps: Pick<DomainInfra, 'repos' | 'config'>,
): Promise<void> {
  const now = new Date().toISOString();
  const { repos, config } = deps;
  await repos.runtime.ensure(now);
  await seedDemoWorld(repos, now); // the demo world of a fresh database (docs/world.md)
  await repos.organizations.ensure(SANDBOX_ORGANIZATION, now);
  const operators = await repos.organizations.ensure(OPERATORS_ORGANIZATION, now);
  if (!config.adminApiKey) return;

  let principal = await repos.principals.findByEmail(BOOTSTRAP_EMAIL);
  if (!principal) {
    const candidate: Principal = {
      _id: newId('prn'),
      name: 'bootstrap operator',
      email: BOOTSTRAP_EMAIL,
      email_key: BOOTSTRAP_EMAIL,
      organization_id: operators._id,
      role: 'operator',
      status: 'active',
      created_at: now,
      updated_at: now,
    };
    try {
      principal = await repos.principals.insert(candidate);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      principal = await repos.principals.findByEmail(BOOTSTRAP_EMAIL);
      if (!principal) throw error;
    }
  }
  const keyId = bootstrapKeyId(config.adminApiKey);
  await repos.apiKeys.upsert({
    _id: keyId,
    secret_hash: hashApiKey(config.adminApiKey, config.keyPepper),
    principal_id: principal._id,
    organization_id: principal.organization_id,
    entitlement: 'strategic',
    access_layer: 3,
    label: 'bootstrap operator key (ADMIN_API_KEY)',
    status: 'active',
    bootstrap: true,
    created_at: now,
    updated_at: now,
  });
  await repos.apiKeys.revokeOtherBootstrapKeys(keyId, now);
}
