import type { DomainInfra } from '../infra';
import { hashApiKey, mintApiKey, newKeyId } from '../../auth/api-key';
import type { AccessLayer, Entitlement } from '../../auth/families';
import { classDefaults, requestLimitsView } from '../../auth/effective-limits';
import type { ApiKeyRecord } from '../../store/api-keys.repo';
import type { Principal } from '../../store/principals.repo';

export interface IssuedKey {
  record: ApiKeyRecord;
  /** The full key: shown once, never stored. */
  apiKey: string;
}

export interface IssueKeyInput {
  principal: Principal;
  entitlement: Entitlement;
  accessLayer: AccessLayer;
  label?: string;
  expiresAt?: string;
}

/** Mints a key for a principal and stores only its peppered hash. */
export async function issueKey(
  deps: {
    repos: Pick<DomainInfra['repos'], 'apiKeys'>;
    config: Pick<DomainInfra['config'], 'keyPepper'>;
  },
  input: IssueKeyInput,
): Promise<IssuedKey> {
  const keyId = newKeyId();
  const apiKey = mintApiKey(keyId);
  const now = new Date().toISOString();
  const record: ApiKeyRecord = {
    _id: keyId,
    secret_hash: hashApiKey(apiKey, deps.config.keyPepper),
    principal_id: input.principal._id,
    organization_id: input.principal.organization_id,
    entitlement: input.entitlement,
    access_layer: input.accessLayer,
    ...(input.label ? { label: input.label } : {}),
    status: 'active',
    ...(input.expiresAt ? { expires_at: input.expiresAt } : {}),
    created_at: now,
    updated_at: now,
  };
  await deps.repos.apiKeys.insert(record);
  return { record, apiKey };
}

/** The limits a key gets from its class (`effectiveLimits` adds the quota policies). */
export const classLimitsView = (entitlement: Entitlement) =>
  requestLimitsView(classDefaults(entitlement));
