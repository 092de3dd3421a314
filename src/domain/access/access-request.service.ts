import type { DomainInfra } from '../infra';
import { effectiveLimits, requestLimitsView } from '../../auth/effective-limits';
import { layerName } from '../../auth/families';
import { newId } from '../../lib/ids';
import { SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import { createdActive, insertUnique } from '../governance/audit';
import { issueKey } from '../governance/keys.service';
import type { SandboxAccessRequest } from '../governance/schemas';

type Deps = Pick<DomainInfra, 'authenticator' | 'config' | 'repos'>;

/**
 * Grants a sandbox key at once: a `member` principal in the sandbox organization and a
 * sandbox, layer-0 key. One grant per e-mail (case-insensitive); the api bounds the grants
 * per client address per hour.
 */
export async function requestSandboxAccess(
  deps: Deps,
  input: SandboxAccessRequest,
  requestId: string,
) {
  const now = new Date().toISOString();
  const organization = await deps.repos.organizations.ensure(SANDBOX_ORGANIZATION, now);
  const principal = {
    _id: newId('prn'),
    name: input.name,
    email: input.email,
    email_key: input.email.toLowerCase(),
    organization_id: organization._id,
    role: 'member' as const,
    intended_use: input.intended_use,
    ...createdActive(now),
  };
  await insertUnique(
    () => deps.repos.principals.insert(principal),
    'an access grant already exists for this e-mail address',
  );
  let issued;
  try {
    issued = await issueKey(deps, {
      principal,
      entitlement: 'sandbox',
      accessLayer: 0,
      label: 'sandbox access request',
    });
  } catch (error) {
    // No half-written grant: without its key the principal would block this e-mail forever.
    await deps.repos.principals.remove(principal._id);
    throw error;
  }
  await deps.repos.audit.record({
    at: now,
    actor: { key_id: null, principal_id: principal._id },
    action: 'access.request',
    target: { type: 'api_key', id: issued.record._id },
    before: null,
    after: {
      principal_id: principal._id,
      email: principal.email,
      entitlement: 'sandbox',
      access_layer: 'layer0_public',
    },
    request_id: requestId,
  });
  return {
    api_key: issued.apiKey,
    entitlement: 'sandbox',
    access_layer: layerName(0),
    // What the authenticator will enforce on it: a sandbox-wide policy applies at once.
    limits: requestLimitsView(await effectiveLimits(deps.repos.quotaPolicies, issued.record)),
    key_id: issued.record._id,
  };
}
