import type { DomainInfra } from './infra';
import { workflowUiUrl, type WorkflowLinks } from '../lib/workflow-text';

/** What links between the api and the Temporal Web UI are built from. */
export type LinkDeps = Pick<DomainInfra, 'config' | 'temporal'>;

/** A workflow-backed resource's page in the Temporal Web UI (`workflow_url` of its view). */
export const workflowUrlOf = (deps: LinkDeps, workflowId: string): string =>
  workflowUiUrl(deps.config.temporalUiUrl, deps.temporal.namespace, workflowId);

/**
 * Where a workflow's static details point back to: the api resource (`apiPath`, e.g.
 * `/v1/repair/state?object_id=…`) and the console (`consoleHash`, e.g. `#/action/act_…`).
 */
export const linksOf = (deps: LinkDeps, apiPath: string, consoleHash = ''): WorkflowLinks => ({
  api: `${deps.config.publicBaseUrl}${apiPath}`,
  console: `${deps.config.publicBaseUrl}/console${consoleHash}`,
});
