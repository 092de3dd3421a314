import type { paths } from '../schema';

type Ok<T> = T extends {
  responses: { 200: { content: { 'application/json': { payload: infer P } } } };
}
  ? P
  : never;

/** An action as `GET /v1/external-actions/{action_id}` answers it. */
export type Action = Ok<paths['/v1/external-actions/{action_id}']['get']>;
/** One row of `GET /v1/external-actions`. */
export type ActionSummary = Ok<paths['/v1/external-actions']['get']>['items'][number];
/** A deployment as `GET /v1/substrates/deployments/{deployment_id}` answers it. */
export type Deployment = Ok<paths['/v1/substrates/deployments/{deployment_id}']['get']>;
/** Who the calling key is (`GET /v1/principals/me`). */
export type WhoAmI = Ok<paths['/v1/principals/me']['get']>;

export { FINAL_ACTION_STATUSES } from '../require-approval';

/**
 * A deployment's stages in the order it passes them, then how it may end. The service's
 * own list is not importable from this package; typed against the served schema, a stage
 * renamed or dropped there fails this package's build instead of drifting.
 */
export const DEPLOYMENT_STAGES: readonly Deployment['stage'][] = [
  'validating',
  'compiling',
  'deploying',
  'observing',
  'assaying',
  'ready',
];
export const FINAL_DEPLOYMENT_STATUSES: ReadonlySet<string> = new Set([
  'ready',
  'failed',
  'cancelled',
] satisfies Deployment['stage'][]);

/** One of the caller's approver keys (`GET /v1/principals/me/keys`). */
export type ApproverKeyView = Ok<paths['/v1/principals/me/keys']['get']>['items'][number];

/** The names behind ids (`GET /v1/external-actions/names`). */
export type ActionNames = Ok<paths['/v1/external-actions/names']['get']>;

/** One entry of the action ledger (`GET /v1/external-actions/history`). */
export type LedgerEntry = Ok<paths['/v1/external-actions/history']['get']>['items'][number];
