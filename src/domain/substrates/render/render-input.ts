import type { Box, CellGrid } from '../engine/types';

/** What every renderer draws from: one observed state of a deployment. */
export interface RenderInput {
  deployment_id: string;
  tick: number;
  grid: CellGrid;
  population: number;
  bounding_box: Box | null;
  digest: string;
  /** The deployment's spec, as validated; read leniently, only for display. */
  spec: Record<string, unknown>;
  manifest_sha256: string | null;
  stage: string;
  /** Motif counts from a recognizer, when one ran. */
  motifs?: Record<string, number>;
}
