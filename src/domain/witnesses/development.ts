import type { DomainInfra } from '../infra';
import { inputsOf, type WitnessHeader } from './inputs';

type Deps = Pick<DomainInfra, 'repos' | 'witnesses'>;

/** What the runtime has lived through, all time. */
export interface Experience {
  sessions: number;
  steps: number;
  actions_executed: number;
  deployments_ready: number;
  events_ingested: number;
}

export const DEVELOPMENT_STAGES = ['nascent', 'developing', 'established', 'mature'] as const;
export type DevelopmentStage = (typeof DEVELOPMENT_STAGES)[number];

/**
 * What each stage past `nascent` takes, every dimension at least (docs/witnesses.md). A
 * runtime is in the highest stage whose thresholds it meets.
 */
export const STAGE_THRESHOLDS: Record<Exclude<DevelopmentStage, 'nascent'>, Experience> = {
  developing: {
    sessions: 1,
    steps: 10,
    actions_executed: 1,
    deployments_ready: 0,
    events_ingested: 0,
  },
  established: {
    sessions: 10,
    steps: 100,
    actions_executed: 10,
    deployments_ready: 1,
    events_ingested: 100,
  },
  mature: {
    sessions: 100,
    steps: 1_000,
    actions_executed: 100,
    deployments_ready: 10,
    events_ingested: 10_000,
  },
};

export interface Development extends WitnessHeader {
  stage: DevelopmentStage;
  experience: Experience;
  /** The next stage and what each short dimension still needs; null when mature. */
  next_stage: { stage: DevelopmentStage; needs: Partial<Experience> } | null;
}

const meets = (experience: Experience, threshold: Experience): boolean =>
  (Object.keys(threshold) as (keyof Experience)[]).every(
    (dimension) => experience[dimension] >= threshold[dimension],
  );

/** The stage formula, pure. */
export function stageOf(experience: Experience): Pick<Development, 'stage' | 'next_stage'> {
  let stage: DevelopmentStage = 'nascent';
  for (const candidate of ['developing', 'established', 'mature'] as const) {
    if (!meets(experience, STAGE_THRESHOLDS[candidate])) break;
    stage = candidate;
  }
  const next = DEVELOPMENT_STAGES[DEVELOPMENT_STAGES.indexOf(stage) + 1] as
    Exclude<DevelopmentStage, 'nascent'> | undefined;
  if (!next) return { stage, next_stage: null };
  const needs: Partial<Experience> = {};
  for (const [dimension, threshold] of Object.entries(STAGE_THRESHOLDS[next]) as [
    keyof Experience,
    number,
  ][]) {
    if (experience[dimension] < threshold) needs[dimension] = threshold - experience[dimension];
  }
  return { stage, next_stage: { stage: next, needs } };
}

/**
 * `GET /v1/runtime/development`: the runtime's experience, all time (its window runs from
 * the runtime's creation), and the stage it has reached.
 */
export async function development(deps: Deps, now = new Date()): Promise<Development> {
  const [runtime, head, fold] = await Promise.all([
    deps.repos.runtime.get(),
    deps.repos.sessions.lineageHead(),
    deps.witnesses.current(),
  ]);
  const steps = fold.stepCount;
  const events = fold.events.size;
  const experience: Experience = {
    sessions: head?.sessions ?? 0,
    steps,
    actions_executed: fold.actionsByStatus.get('executed')?.size ?? 0,
    deployments_ready: fold.deploymentsByStage.get('ready')?.size ?? 0,
    events_ingested: events,
  };
  return {
    witness: 'development',
    computed_at: now.toISOString(),
    window: { from: runtime?.created_at ?? now.toISOString(), to: now.toISOString() },
    inputs: inputsOf(
      head ? [{ kind: 'session_lineage', id: String(head._id), version: head.digest }] : [],
      {
        session_steps: steps,
        actions_executed: experience.actions_executed,
        deployments_ready: experience.deployments_ready,
        external_events: events,
      },
    ),
    ...stageOf(experience),
    experience,
  };
}
