import type { AuthContext } from '../../auth/auth-context';
import { code, detailsMarkdown, mdText, oneLine, whoMarkdown } from '../../lib/workflow-text';
import type { CheckpointRecord } from '../../store/checkpoints.repo';
import { linksOf, type LinkDeps } from '../workflow-links';
import { CHECKPOINT_SCOPES } from './schemas';

/** What a checkpoint's workflow shows in the Temporal Web UI from its start. */
export function checkpointStartText(deps: LinkDeps, record: CheckpointRecord, auth: AuthContext) {
  const scopes =
    record.scope.length === CHECKPOINT_SCOPES.length ? 'of every scope' : record.scope.join(', ');
  return {
    staticSummary: oneLine(
      `checkpoint ${scopes} · ${record._id} · by ${auth.principalName ?? auth.principalId}${record.label ? ` · ${record.label}` : ''}`,
    ),
    staticDetails: detailsMarkdown(
      `Checkpoint ${record.label ? `"${mdText(record.label)}"` : code(record._id)}`,
      {
        Checkpoint: code(record._id),
        Scopes: record.scope.map(code).join(', '),
        Label: record.label ? mdText(record.label) : null,
        'Requested by': whoMarkdown(auth.principalName, auth.principalId),
        Artifacts: `${code(`checkpoints/${record._id}/`)}, then ${code('manifest.json')} there`,
      },
      linksOf(deps, `/v1/continuous-ops/checkpoints/${record._id}`),
    ),
  };
}

/** The schedule's note (Schedules page): what it is and where its spec comes from. */
export const checkpointScheduleNote = (spec: string): string =>
  `Continuous checkpoints of every scope (${CHECKPOINT_SCOPES.join(', ')}), every ${spec} (CHECKPOINT_SCHEDULE); a run still going when the next is due makes it skip.`;

/** What each scheduled checkpoint's workflow shows in the Web UI (list line and page). */
export const scheduledCheckpointText = (scheduleId: string, spec: string, baseUrl: string) => ({
  staticSummary: `scheduled checkpoint of every scope · every ${spec} · by the schedule ${scheduleId}`,
  staticDetails: detailsMarkdown(
    'Scheduled checkpoint of every scope',
    {
      Schedule: `${code(scheduleId)} (${code(spec)}, CHECKPOINT_SCHEDULE)`,
      Scopes: CHECKPOINT_SCOPES.map(code).join(', '),
      'Requested by': `the schedule (${code('requested_by: schedule')})`,
      Checkpoint:
        'its id (`chk_…`) is made by the run: see Current Details, or the newest checkpoint in the api',
    },
    {
      api: `${baseUrl}/v1/continuous-ops/checkpoints`,
      console: `${baseUrl}/console`,
    },
  ),
});
