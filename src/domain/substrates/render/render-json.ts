import type { Box } from '../engine/types';
import type { RenderInput } from './render-input';

/** The JSON rendering: the identifying fields and a summary of the state, no cells. */
export interface RenderedJson {
  deployment_id: string;
  tick: number;
  stage: string;
  spec: Record<string, unknown>;
  manifest_sha256: string | null;
  summary: {
    population: number;
    bounding_box: Box | null;
    digest: string;
    /** Null when no recognizer ran (an empty object means one ran and found nothing). */
    motifs: Record<string, number> | null;
  };
}

/** The JSON rendering of one observed state. */
export function renderJson(input: RenderInput): RenderedJson {
  return {
    deployment_id: input.deployment_id,
    tick: input.tick,
    stage: input.stage,
    spec: input.spec,
    manifest_sha256: input.manifest_sha256,
    summary: {
      population: input.population,
      bounding_box: input.bounding_box,
      digest: input.digest,
      motifs: input.motifs ?? null,
    },
  };
}
