import type { AccessLayer, Entitlement } from './families';
import type { KeyLimits } from './limits';

export type PrincipalRole = 'member' | 'operator';

/** Who is calling: the verified key and its principal, as the guards and handlers see it. */
export interface AuthContext {
  keyId: string;
  principalId: string;
  /** The principal's name, for what people read (workflow summaries); never an identity. */
  principalName?: string;
  organizationId: string;
  role: PrincipalRole;
  entitlement: Entitlement;
  accessLayer: AccessLayer;
  limits: KeyLimits;
}
