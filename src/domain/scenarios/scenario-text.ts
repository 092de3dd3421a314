import type { AuthContext } from '../../auth/auth-context';
import { code, detailsMarkdown, mdText, oneLine, whoMarkdown } from '../../lib/workflow-text';
import type { ScenarioRunRecord } from '../../store/scenario-runs.repo';
import { linksOf, type LinkDeps } from '../workflow-links';
import type { ScenarioDefinition, ScenarioParams } from './registry';

/** What a scenario run's workflow shows in the Temporal Web UI from its start. */
export const scenarioStartText = (
  deps: LinkDeps,
  record: ScenarioRunRecord,
  definition: ScenarioDefinition,
  params: ScenarioParams,
  auth: AuthContext,
) => ({
  staticSummary: oneLine(
    `scenario ${definition.name} · ${record._id} · by ${auth.principalName ?? auth.principalId} · ${definition.summary}`,
  ),
  staticDetails: detailsMarkdown(
    `Scenario ${code(definition.name)}`,
    {
      'Scenario run': code(record._id),
      What: mdText(definition.summary),
      Expected: mdText(definition.expected),
      Parameters: code(JSON.stringify(params)),
      'Requested by': whoMarkdown(auth.principalName, auth.principalId),
      'Shared context': code(record.shared_context_id),
      Report: code(`scenarios/${record._id}/report.md`),
    },
    linksOf(deps, '/v1/scenarios'),
  ),
});
