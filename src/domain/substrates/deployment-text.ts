import { code, detailsMarkdown, mdText, oneLine } from '../../lib/workflow-text';
import type { DeploymentRecord } from '../../store/substrate-deployments.repo';
import { linksOf, type LinkDeps } from '../workflow-links';

/**
 * What a deployment's workflow shows in the Temporal Web UI from its start: a label (kept
 * across continue-as-new, it heads the current details), the list view's one-line summary
 * and the static details with links back to the api and the console.
 */
export function deploymentStartText(
  deps: LinkDeps,
  record: DeploymentRecord,
  requesterName: string | undefined,
) {
  const { spec } = record;
  const size = `${spec.params.width}x${spec.params.height}`;
  const label = oneLine(`${spec.scaffold} ${size} ${spec.params.rule}`, 120);
  const requester = requesterName ?? record.created_by;
  return {
    label,
    summary: oneLine(
      `deploy ${label}, ${spec.params.ticks} ticks · ${record._id} · by ${requester} · envelope ${spec.envelope}`,
    ),
    details: detailsMarkdown(
      `Deployment of ${mdText(label)}`,
      {
        Deployment: code(record._id),
        'Requested by': requesterName
          ? `${mdText(requesterName)} (${code(record.created_by)})`
          : code(record.created_by),
        Scaffold: code(spec.scaffold),
        Size: `${size}, rule ${code(String(spec.params.rule))}, ${spec.params.ticks} ticks`,
        Envelope: `${code(spec.envelope)} (wall-time bound ${record.max_wall_seconds} s)`,
        Snapshots: `every ${record.snapshot_interval} ticks`,
      },
      linksOf(deps, `/v1/substrates/deployments/${record._id}`),
    ),
  };
}
