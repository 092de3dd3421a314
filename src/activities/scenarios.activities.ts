import { Context } from '@temporalio/activity';
import { scenarioCaller } from '../domain/scenarios/api-client';
import { DRIVERS, recordObservations, type Observations } from '../domain/scenarios/drivers';
import { judge, reportMarkdown } from '../domain/scenarios/judge';
import { scenarioPrincipals, type ScenarioPrincipalDeps } from '../domain/scenarios/principals';
import type { ScenarioParams } from '../domain/scenarios/registry';
import type { ScenarioName } from '../domain/scenarios/schemas';
import { seedScenarioObject } from '../domain/scenarios/fixtures';
import type { Repos } from '../store';
import type { ScenarioRunRecord } from '../store/scenario-runs.repo';
import stringify from 'safe-stable-stringify';

export interface ScenarioActivityDeps {
  repos: ScenarioPrincipalDeps['repos'] &
    Pick<Repos, 'scenarioRuns' | 'artifacts' | 'worldObjects' | 'worldHistory'>;
  keyPepper: string;
}

export interface DriveInput {
  run_id: string;
  scenario: ScenarioName;
  params: ScenarioParams;
  shared_context_id: string;
  api_url: string;
}

/** A scenario run's activities: drive it through the api, judge and report, record. */
export function createScenarioActivities(deps: ScenarioActivityDeps) {
  return {
    /**
     * Drives the scenario as two principals of the run's own (fresh keys each attempt,
     * revoked at the end) and records what it observed as an event in the run's context.
     * A retry drives again: every record it makes is keyed by the run, or is new.
     */
    async driveScenario(input: DriveInput): Promise<Observations> {
      const principals = await scenarioPrincipals(deps, input.run_id);
      try {
        const context = {
          runId: input.run_id,
          contextId: input.shared_context_id,
          params: input.params,
          proposer: scenarioCaller(input.api_url, principals.keys.proposer.apiKey),
          approver: scenarioCaller(input.api_url, principals.keys.approver.apiKey),
          seedObject: (name: string, attributes: Record<string, unknown>) =>
            seedScenarioObject(deps.repos, input.run_id, name, attributes),
          heartbeat: (detail: string) => Context.current().heartbeat(detail),
        };
        const observations = await DRIVERS[input.scenario](context);
        await recordObservations(context, input.scenario, observations);
        return observations;
      } finally {
        await principals.revoke();
      }
    },
    /**
     * Judges the observations and stores the report (JSON and Markdown) as artifacts. The
     * time comes from the workflow, so a retry writes the same bytes to the same paths
     * (an artifact path never changes content).
     */
    async reportScenario(input: {
      record: ScenarioRunRecord;
      judged_at: string;
    }): Promise<ScenarioRunRecord> {
      const { record, judged_at: judgedAt } = input;
      const scenario = record.scenario as ScenarioName;
      const { passed, checks } = judge(scenario, record.params, record.observations);
      const status = passed ? 'passed' : 'failed';
      const report = {
        run_id: record._id,
        scenario,
        status,
        params: record.params,
        checks,
        observations: record.observations,
        judged_at: judgedAt,
      };
      const base = `scenarios/${record._id}`;
      const json = await deps.repos.artifacts.put({
        path: `${base}/report.json`,
        kind: 'scenario_report',
        content_type: 'application/json',
        content: Buffer.from(`${stringify(report, null, 2)}\n`, 'utf8'),
        now: judgedAt,
      });
      await deps.repos.artifacts.put({
        path: `${base}/report.md`,
        kind: 'scenario_report',
        content_type: 'text/markdown; charset=utf-8',
        content: Buffer.from(reportMarkdown(report), 'utf8'),
        now: judgedAt,
      });
      return {
        ...record,
        status,
        checks,
        report: {
          json: `${base}/report.json`,
          markdown: `${base}/report.md`,
          sha256: json.artifact.sha256,
        },
        completed_at: judgedAt,
      };
    },
    /** Writes the run as its workflow sees it (`seq`-guarded). */
    async recordScenarioRun(record: ScenarioRunRecord): Promise<void> {
      await deps.repos.scenarioRuns.project(record);
    },
  };
}
