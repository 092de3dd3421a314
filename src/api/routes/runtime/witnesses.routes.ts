import { affect } from '../../../domain/witnesses/affect';
import { development } from '../../../domain/witnesses/development';
import { integratedSelfWorld, requireSession, selfReport } from '../../../domain/witnesses/self';
import * as witnessViews from '../../../domain/witnesses/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

const TAGS = ['runtime'];

/** The runtime witnesses (DESIGN.md section 8): pure readouts of durable records. */
export const runtimeWitnessRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'runtime.affect',
    method: 'GET',
    path: '/v1/runtime/affect',
    family: 'runtime_witness',
    summary: 'affective witness readout',
    description:
      "How the runtime's outcomes went over the window ending now (default 3600 s): `valence` −1..1 from executed and approved against failed, rejected and expired actions and reconciliation conflicts; `arousal` 0..1 from how many there were. Formula in docs/witnesses.md.",
    tags: TAGS,
    request: { query: witnessViews.runtimeWitnessQuery },
    responses: {
      200: { description: 'The affect witness.', schema: envelope(witnessViews.affectView) },
    },
    handler: async (req, deps) => {
      await requireSession(deps, req.query.session_id);
      return { payload: await affect(deps, req.query.window_seconds ?? 3600) };
    },
  }),
  defineRoute({
    operationId: 'runtime.development',
    method: 'GET',
    path: '/v1/runtime/development',
    family: 'runtime_witness',
    summary: 'developmental witness readout',
    description:
      "The runtime's experience since it began (sessions, steps, executed actions, ready deployments, ingested events) and the developmental stage it has reached (`nascent`, `developing`, `established`, `mature`), with what the next stage needs. Thresholds in docs/witnesses.md.",
    tags: TAGS,
    request: { query: witnessViews.runtimeWitnessQuery },
    responses: {
      200: {
        description: 'The development witness.',
        schema: envelope(witnessViews.developmentView),
      },
    },
    handler: async (req, deps) => {
      await requireSession(deps, req.query.session_id);
      return { payload: await development(deps) };
    },
  }),
  defineRoute({
    operationId: 'runtime.selfReport',
    method: 'GET',
    path: '/v1/runtime/self-report',
    family: 'runtime_witness',
    summary: 'structured self report',
    description:
      'Identity and lineage, status, affect over the window, development, commitments (approved and executing actions, open tasks) and recent failures, in one document; with `session_id`, that session as well (an unknown one is 404).',
    tags: TAGS,
    request: { query: witnessViews.runtimeWitnessQuery },
    responses: {
      200: { description: 'The self-report.', schema: envelope(witnessViews.selfReportView) },
    },
    handler: async (req, deps) => ({ payload: await selfReport(deps, req.query) }),
  }),
  defineRoute({
    operationId: 'runtime.integratedSelfWorld',
    method: 'GET',
    path: '/v1/runtime/integrated-self-world',
    family: 'runtime_witness',
    summary: 'integrated self-world witness',
    description:
      'The self (identity, stage, affect) beside the world it is committed to: every object a pending action targets or an open task names, with those actions and tasks and its reconciliation state, and `coherence`: the share of them reconciled with no conflict.',
    tags: TAGS,
    request: { query: witnessViews.runtimeWitnessQuery },
    responses: {
      200: {
        description: 'The integrated self-world witness.',
        schema: envelope(witnessViews.integratedSelfWorldView),
      },
    },
    handler: async (req, deps) => {
      await requireSession(deps, req.query.session_id);
      return { payload: await integratedSelfWorld(deps, req.query) };
    },
  }),
];
