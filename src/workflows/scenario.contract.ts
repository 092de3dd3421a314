import type { ScenarioRunRecord } from '../store/scenario-runs.repo';

export interface ScenarioWorkflowInput {
  record: ScenarioRunRecord;
  /** Base URL of the api the run drives (it acts as a client: docs/scenarios.md). */
  api_url: string;
}

export const scenarioWorkflowId = (runId: string): string => `scenario-${runId}`;
