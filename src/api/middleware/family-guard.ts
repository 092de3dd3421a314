import type { AuthContext } from '../../auth/auth-context';
import {
  FAMILIES,
  entitlementRank,
  familyOpensTo,
  layerName,
  type FamilyName,
} from '../../auth/families';
import { ApiError } from '../errors';
import type { Gate } from './gate';

/** 403 when the key's role, class or layer is below the family's minimum. */
export function guardFamilyGate(familyName: FamilyName): Gate {
  const policy = FAMILIES[familyName];
  return (ctx) => {
    const auth = ctx.state.auth as AuthContext;
    if (!familyOpensTo(policy, auth)) throw forbidden(familyName, auth);
  };
}

/** The 403 of `guardFamilyGate`, built only when a key falls short. */
function forbidden(familyName: FamilyName, auth: AuthContext): ApiError {
  const policy = FAMILIES[familyName];
  const required = {
    entitlement: policy.minEntitlement,
    access_layer: layerName(policy.minLayer),
    ...(policy.operatorOnly ? { role: 'operator' } : {}),
  };
  const held = {
    entitlement: auth.entitlement,
    access_layer: layerName(auth.accessLayer),
    role: auth.role,
  };
  const problems: string[] = [];
  if (policy.operatorOnly && auth.role !== 'operator') {
    problems.push(`role operator required, key's principal is ${auth.role}`);
  }
  if (entitlementRank(auth.entitlement) < entitlementRank(policy.minEntitlement)) {
    problems.push(`entitlement ${policy.minEntitlement} required, key holds ${auth.entitlement}`);
  }
  if (auth.accessLayer < policy.minLayer) {
    problems.push(`access layer ${required.access_layer} required, key holds ${held.access_layer}`);
  }
  return new ApiError('forbidden', `route family ${familyName} is outside this key's access`, {
    detail: `${familyName} (${policy.exposure}): ${problems.join('; ')}`,
    extra: { family: familyName, exposure: policy.exposure, required, held },
  });
}
