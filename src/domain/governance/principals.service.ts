import type { AppDeps } from '../../app/deps';
import type { AuthContext, PrincipalRole } from '../../auth/auth-context';
import { ApiError, notFound } from '../../api/errors';
import { newId } from '../../lib/ids';
import { isDuplicateKey } from '../../store/mongo';
import { OPERATORS_ORGANIZATION, SANDBOX_ORGANIZATION } from '../../store/organizations.repo';
import type { Principal } from '../../store/principals.repo';
import { audit } from './audit';
import { principalView } from './views';

export interface CreatePrincipalBody {
  name: string;
  email: string;
  organization_id?: string;
  role: PrincipalRole;
}

/** Creates a principal; without an organization, members join `sandbox`, operators `operators`. */
export async function createPrincipal(
  deps: AppDeps,
  auth: AuthContext,
  requestId: string,
  body: CreatePrincipalBody,
) {
  const now = new Date().toISOString();
  const organization = body.organization_id
    ? await deps.repos.organizations.findById(body.organization_id)
    : await deps.repos.organizations.ensure(
        body.role === 'operator' ? OPERATORS_ORGANIZATION : SANDBOX_ORGANIZATION,
        now,
      );
  if (!organization) throw notFound(`organization ${body.organization_id}`);
  if (organization.status !== 'active') {
    throw new ApiError(
      'invalid_state',
      `organization ${organization._id} is ${organization.status}`,
    );
  }
  const principal: Principal = {
    _id: newId('prn'),
    name: body.name,
    email: body.email,
    email_key: body.email.toLowerCase(),
    organization_id: organization._id,
    role: body.role,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.repos.principals.insert(principal);
  } catch (error) {
    if (isDuplicateKey(error))
      throw new ApiError('conflict', 'a principal with this e-mail address already exists');
    throw error;
  }
  const view = principalView(principal);
  await audit(deps, auth, requestId, {
    action: 'principal.create',
    target: { type: 'principal', id: principal._id },
    before: null,
    after: view,
  });
  return view;
}
