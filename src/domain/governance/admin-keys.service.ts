import type { AppDeps } from '../../app/deps';
import type { AuthContext } from '../../auth/auth-context';
import { parseAccessLayer, type Entitlement } from '../../auth/families';
import { ApiError, notFound, validationError } from '../../api/errors';
import { audit } from './audit';
import { classLimitsView, issueKey } from './keys.service';
import { keyView } from './views';

export interface CreateKeyBody {
  principal_id: string;
  entitlement: Entitlement;
  access_layer: number | string;
  label?: string;
  expires_at?: string;
}

/** Mints a key for an existing, active principal; the secret is in this answer only. */
export async function createKey(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: CreateKeyBody,
) {
  const accessLayer = parseAccessLayer(body.access_layer);
  if (accessLayer === undefined) {
    throw validationError([
      { loc: ['body', 'access_layer'], msg: 'Input should be 0..3 or a layer name', type: 'enum' },
    ]);
  }
  if (body.expires_at && Date.parse(body.expires_at) <= Date.now()) {
    throw validationError([
      {
        loc: ['body', 'expires_at'],
        msg: 'Input should be in the future',
        type: 'datetime_future',
      },
    ]);
  }
  const principal = await deps.repos.principals.findById(body.principal_id);
  if (!principal) throw notFound(`principal ${body.principal_id}`);
  if (principal.status !== 'active') {
    throw new ApiError('invalid_state', `principal ${principal._id} is ${principal.status}`);
  }
  const issued = await issueKey(deps, {
    principal,
    entitlement: body.entitlement,
    accessLayer,
    label: body.label,
    expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : undefined,
  });
  const view = keyView(issued.record);
  await audit(deps, auth, requestId, {
    action: 'key.create',
    target: { type: 'api_key', id: issued.record._id },
    before: null,
    after: view,
  });
  return { ...view, api_key: issued.apiKey, limits: classLimitsView(body.entitlement) };
}
