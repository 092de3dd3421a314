export {
  createClient,
  type ClientOptions,
  type GovernedApi,
  type GovernedClient,
  type PagedPath,
  type PageItem,
} from './client';
export { GovernedApiError, ServiceUnreachableError, type ErrorEnvelope } from './errors';
export {
  requireApproval,
  ApprovalTimeoutError,
  type ApprovalRequest,
  type ApprovalOptions,
} from './require-approval';
export type { paths, components, operations } from './schema';
export {
  signDecision,
  approverChallengeBytes,
  type ApproverAssertion,
  type DecisionChallenge,
  type IntendedDecision,
} from './sign-decision';
export {
  parseSigningKey,
  parsePublicKey,
  openSshPublicKey,
  publicKeyFingerprint,
  rawPublicKeyHex,
  ApproverKeyFormatError,
} from './approver-keys';
