import { named, type Names } from './names';
import { table, when, type Style } from './output';
import { DEPLOYMENT_STAGES, type Deployment } from './types';

/**
 * How far through its stages a deployment is, 0..1: each stage an equal share, the
 * deploying stage filled in by ticks computed (it is most of the wall time).
 */
export function deploymentFraction(d: Pick<Deployment, 'stage' | 'progress'>): number {
  const index = DEPLOYMENT_STAGES.indexOf(d.stage);
  if (index < 0) return 0; // failed or cancelled: the bar says where it stopped by stage name
  const last = DEPLOYMENT_STAGES.length - 1;
  const within =
    d.stage === 'deploying' && d.progress.ticks_total > 0
      ? Math.min(1, d.progress.tick / d.progress.ticks_total)
      : 0;
  return Math.min(1, (index + within) / last);
}

/** `[██████░░░░░░] deploying (3/6) tick 120/400`: one line, redrawn as it moves. */
export function progressLine(d: Deployment, style: Style, width = 24): string {
  const filled = Math.round(deploymentFraction(d) * width);
  const bar = `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
  const index = DEPLOYMENT_STAGES.indexOf(d.stage);
  const step = index >= 0 ? ` (${index + 1}/${DEPLOYMENT_STAGES.length})` : '';
  const ticks = `tick ${d.progress.tick}/${d.progress.ticks_total}`;
  return `${bar} ${style.status(d.stage)}${step} ${ticks}`;
}

/** The rows of `gr deployments list`, each naming who created it. */
export function deploymentTable(
  deployments: Deployment[],
  style: Style,
  names: Names = new Map(),
): string[] {
  return table(
    ['DEPLOYMENT', 'STATUS', 'STAGE', 'TICKS', 'CREATED', 'BY'],
    deployments.map((d) => [
      d.deployment_id,
      style.status(d.status),
      d.stage,
      `${d.progress.tick}/${d.progress.ticks_total}`,
      d.created_at.slice(0, 19).replace('T', ' '),
      d.created_by ? (names.get(d.created_by) ?? d.created_by) : '-',
    ]),
  );
}

/** `gr deployments show`: progress, each stage's time, the outcome and where to look. */
export function deploymentDetails(
  d: Deployment,
  style: Style,
  now = Date.now(),
  names: Names = new Map(),
): string[] {
  const stamps = d.stage_timestamps as Record<string, string>;
  const spec = d.spec as { scaffold?: string; params?: { width?: number; height?: number } };
  const lines = [
    `${style.bold(d.deployment_id)}  ${style.status(d.status)}`,
    `  ${progressLine(d, style)}`,
    `  spec       ${spec.scaffold ?? '?'} ${JSON.stringify(spec.params ?? {})}`,
    `  created    ${when(d.created_at, now)}${d.created_by ? ` by ${named(names, d.created_by)}` : ''}`,
    style.bold('Stages'),
    ...Object.entries(stamps)
      .sort(([, a], [, b]) => a.localeCompare(b))
      .map(([stage, at]) => `  ${stage.padEnd(11)}${at.slice(0, 19).replace('T', ' ')}Z`),
  ];
  if (d.error) lines.push(`  error      ${d.error}`);
  if (d.final)
    lines.push(
      `  final      tick ${d.final.tick}, population ${d.final.population}, digest ${d.final.digest}`,
    );
  if (d.assay) {
    lines.push(
      `  assay      ${d.assay.pack_id} ${d.assay.passed ? 'passed' : 'failed'} (${d.assay.report_artifact_id})`,
    );
  }
  if (d.workflow_url) lines.push(`  temporal   ${d.workflow_url}`);
  return lines;
}
