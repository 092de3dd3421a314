import type { TSchema } from '@sinclair/typebox';
import type { AppDeps } from '../../../app/deps';
import { affect } from '../../../domain/witnesses/affect';
import { development } from '../../../domain/witnesses/development';
import { integratedSelfWorld, requireSession, selfReport } from '../../../domain/witnesses/self';
import * as witnessViews from '../../../domain/witnesses/view-schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

interface WitnessRoute {
  operation: string;
  path: string;
  summary: string;
  description: string;
  view: TSchema;
  read: (deps: AppDeps, query: witnessViews.RuntimeWitnessQuery) => Promise<unknown>;
}

/** One runtime witness: `GET /v1/runtime/<path>`, focusable on a session (404 if unknown). */
const witnessRoute = (spec: WitnessRoute): RouteDefinition =>
  defineRoute({
    operationId: `runtime.${spec.operation}`,
    method: 'GET',
    path: `/v1/runtime/${spec.path}`,
    family: 'runtime_witness',
    summary: spec.summary,
    description: `${spec.description} Carries the witness header (docs/witnesses.md).`,
    request: { query: witnessViews.runtimeWitnessQuery },
    responses: {
      404: { description: 'No such session (`session_id`).' },
      200: { description: spec.summary, schema: envelope(spec.view) },
    },
    handler: async (req, deps) => {
      await requireSession(deps, req.query.session_id);
      return { payload: await spec.read(deps, req.query) };
    },
  });

/** The runtime witnesses (docs/witnesses.md): pure readouts of durable records. */
export const runtimeWitnessRoutes: RouteDefinition[] = [
  witnessRoute({
    operation: 'affect',
    path: 'affect',
    summary: 'affective witness readout',
    description:
      "How the runtime's outcomes went over the window ending now (default 3600 s): `valence` −1..1 from executed and approved against failed, rejected and expired actions and reconciliation conflicts; `arousal` 0..1 from how many there were.",
    view: witnessViews.affectView,
    read: (deps, query) => affect(deps, query.window_seconds ?? 3600),
  }),
  witnessRoute({
    operation: 'development',
    path: 'development',
    summary: 'developmental witness readout',
    description:
      "The runtime's experience since it began (sessions, steps, executed actions, ready deployments, ingested events) and the developmental stage it has reached (`nascent`, `developing`, `established`, `mature`), with what the next stage needs.",
    view: witnessViews.developmentView,
    read: (deps) => development(deps),
  }),
  witnessRoute({
    operation: 'selfReport',
    path: 'self-report',
    summary: 'structured self report',
    description:
      'Identity and lineage, status, affect over the window, development, commitments (approved and executing actions, open tasks) and recent failures, in one document; with `session_id`, that session as well.',
    view: witnessViews.selfReportView,
    read: (deps, query) => selfReport(deps, query),
  }),
  witnessRoute({
    operation: 'integratedSelfWorld',
    path: 'integrated-self-world',
    summary: 'integrated self-world witness',
    description:
      'The self (identity, stage, affect) beside the world it is committed to: every object a pending action targets or an open task names, with those actions and tasks and its reconciliation state, and `coherence`: the share of them reconciled with no conflict.',
    view: witnessViews.integratedSelfWorldView,
    read: (deps, query) => integratedSelfWorld(deps, query),
  }),
];
