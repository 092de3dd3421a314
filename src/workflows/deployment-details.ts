import { clock } from '../lib/workflow-text';
import type { DeploymentProgressState } from './substrate-deployment.contract';

/** What each stage of a deployment waits for next, in words. */
const NEXT: Record<string, string> = {
  validating: 'the spec checked against its envelope',
  compiling: 'the compiled manifest',
  deploying: 'the next chunk of ticks (compute task queue)',
  observing: 'the final state observed',
  assaying: 'the pipeline assay pack',
  ready: 'nothing: ready',
  failed: 'nothing: failed',
  cancelled: 'nothing: cancelled',
};

/**
 * A deployment's current details (Markdown), set at every stage and every chunk:
 * `**Stage:** deploying`, `**Progress:** tick 40 of 100`, the wall-time bound and what comes next.
 */
export function deploymentCurrentDetails(
  label: string,
  state: DeploymentProgressState,
  extra: { population?: number; deadlineMs?: number } = {},
): string {
  const { tick, ticks_total } = state.progress;
  const lines = [
    `**Deployment:** ${label}`,
    `**Stage:** ${state.stage}`,
    `**Next:** ${NEXT[state.stage] ?? state.stage}`,
    `**Progress:** tick ${tick} of ${ticks_total}${extra.population !== undefined ? `, population ${extra.population}` : ''}`,
    ...(extra.deadlineMs ? [`**Wall-time bound:** ${clock(extra.deadlineMs)}`] : []),
    ...(state.error ? [`**Error:** ${state.error}`] : []),
  ];
  return lines.map((line) => `- ${line}`).join('\n');
}
