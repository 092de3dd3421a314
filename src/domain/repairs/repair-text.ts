import type { AuthContext } from '../../auth/auth-context';
import { code, detailsMarkdown, mdText, oneLine, whoMarkdown } from '../../lib/workflow-text';
import type { RepairRecord } from '../../store/repairs.repo';
import type { WorldObject } from '../../store/world-objects.repo';
import { linksOf, type LinkDeps } from '../workflow-links';

/** What a repair's workflow shows in the Temporal Web UI from its start. */
export const repairStartText = (
  deps: LinkDeps,
  record: RepairRecord,
  object: Pick<WorldObject, '_id' | 'name'>,
  auth: AuthContext,
) => ({
  staticSummary: oneLine(
    `repair ${record.strategy} → ${object.name} (${object._id}) · by ${auth.principalName ?? auth.principalId}${record.reason ? ` · ${record.reason}` : ''}`,
  ),
  staticDetails: detailsMarkdown(
    `Repair of ${mdText(object.name)}`,
    {
      Repair: code(record._id),
      Object: `${mdText(object.name)} (${code(object._id)})`,
      Strategy: code(record.strategy),
      'Requested by': whoMarkdown(auth.principalName, auth.principalId),
      Reason: record.reason ? mdText(record.reason) : '_none given_',
      'Applied by': 'a child `world.restore_object` action, approved like any other',
    },
    linksOf(deps, `/v1/repair/state?object_id=${object._id}`),
  ),
});
