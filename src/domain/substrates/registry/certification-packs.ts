import { PIPELINE_PACK_ID } from '../../../workflows/substrate-deployment.contract';

/** The assays a certification pack can run (src/domain/substrates/certification-assays.ts). */
export type AssayName = 'determinism' | 'envelope_conformance' | 'liveness' | 'period';

export const ASSAY_DESCRIPTIONS: Record<AssayName, string> = {
  determinism:
    'Replays from the spec and from stored snapshots and compares state digests: the initial state against the manifest, each replayed segment against the snapshot that ends it.',
  envelope_conformance:
    'The spec is within its envelope (size, ticks, rule) and the run stayed within its wall-time bound.',
  liveness: 'The final state has live cells.',
  period:
    'The final state enters a cycle (still life, oscillator, or a world whose spaceships wrap) within the detection horizon; reports the period.',
};

/** A certification pack: a named list of assays. */
export interface CertificationPack {
  pack_id: string;
  name: string;
  description: string;
  version: string;
  assays: Array<{ assay: AssayName; description: string }>;
}

const pack = (
  pack_id: string,
  name: string,
  description: string,
  assays: AssayName[],
): CertificationPack => ({
  pack_id,
  name,
  description,
  version: '1',
  assays: assays.map((assay) => ({ assay, description: ASSAY_DESCRIPTIONS[assay] })),
});

/** The certification packs, in id order. */
export const CERTIFICATION_PACKS: readonly CertificationPack[] = [
  pack(
    PIPELINE_PACK_ID,
    'Conformance',
    'Determinism and envelope conformance: the run is reproducible and stayed in bounds. Run by every deployment.',
    ['determinism', 'envelope_conformance'],
  ),
  pack(
    'oscillation',
    'Oscillation',
    'Period detection alone: does the final state cycle, and with which period?',
    ['period'],
  ),
  pack(
    'standard',
    'Standard',
    'Everything: determinism, envelope conformance, liveness and period detection.',
    ['determinism', 'envelope_conformance', 'liveness', 'period'],
  ),
];
