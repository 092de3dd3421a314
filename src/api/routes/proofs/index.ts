import * as proofsService from '../../../domain/proofs/proofs.service';
import * as proofs from '../../../domain/proofs/schemas';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/** Proofs (docs/proofs.md): bounded invariant checks and their runs. */
export const proofRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'proofs.checks',
    method: 'POST',
    path: '/v1/proofs/checks',
    family: 'proofs',
    summary: 'run bounded proof checks',
    description:
      'Runs the named checks (default: all) as a workflow (`proof-prf_…`), each reading at most `max_records` records of what it checks, and records the run. Answers 200 with the results when the run ends within 10 s, else 202 with the run in progress (`Location`: the summary, whose `newest_run` shows progress). Each check is `passed`, `failed` (its violations name the records) or `inconclusive` (the bound stopped a read). docs/proofs.md gives each rule and the hash recipes.',
    request: {
      body: { name: 'ProofChecksRequest', schema: proofs.proofChecksBody, required: false },
    },
    responses: {
      200: { description: 'The run, completed.', schema: envelope(proofs.proofRunView) },
      202: { description: 'The run, in progress.', schema: envelope(proofs.proofRunView) },
    },
    handler: async (req, deps) => {
      const { run, done } = await proofsService.runProofChecks(deps, req.auth, req.body ?? {});
      if (done) return { payload: run };
      return { status: 202, payload: run, headers: { Location: '/v1/proofs/summary' } };
    },
  }),
  defineRoute({
    operationId: 'proofs.status',
    method: 'GET',
    path: '/v1/proofs/status',
    family: 'proofs',
    summary: 'bounded proof certification status',
    description:
      "Each check's newest result and the certification they give: `certified` (every check passed), `failed` (one failed) or `unknown` (one never ran or was inconclusive), with `as_of` (the oldest of those results) and its age.",
    responses: { 200: { description: 'The status.', schema: envelope(proofs.proofStatusView) } },
    handler: async (_req, deps) => ({ payload: await proofsService.proofStatus(deps) }),
  }),
  defineRoute({
    operationId: 'proofs.summary',
    method: 'GET',
    path: '/v1/proofs/summary',
    family: 'proofs',
    summary: 'proof-layer summary',
    description:
      'Runs over time (per UTC day, 30 days, with their results by status), the newest failed results, and the newest run with its progress.',
    responses: { 200: { description: 'The summary.', schema: envelope(proofs.proofSummaryView) } },
    handler: async (_req, deps) => ({ payload: await proofsService.proofSummary(deps) }),
  }),
];
