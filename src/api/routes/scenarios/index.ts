import type { Context } from 'koa';
import * as scenariosService from '../../../domain/scenarios/scenarios.service';
import * as scenarios from '../../../domain/scenarios/schemas';
import { runScenarioRequest } from '../../../domain/scenarios/registry';
import { defineRoute, type RouteDefinition } from '../../route';
import { envelope } from '../common';

/**
 * This api's own address as the connection reached it (never the client's `Host` header,
 * which would let a caller send the run's keys elsewhere).
 */
function ownAddress(ctx: Context): string {
  const socket = ctx.req.socket;
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${socket.localPort ?? 80}`;
}

/** Scenarios (docs/scenarios.md): named end-to-end runs, judged. */
export const scenarioRoutes: RouteDefinition[] = [
  defineRoute({
    operationId: 'scenarios.list',
    method: 'GET',
    path: '/v1/scenarios',
    family: 'scenarios',
    summary: 'list named research scenarios',
    description:
      'Every scenario with its parameter schema (JSON Schema, defaults included), the known outcome it is judged against, and its newest runs (status, checks, report paths).',
    responses: {
      200: { description: 'The scenarios.', schema: envelope(scenarios.scenarioListView) },
    },
    handler: async (_req, deps) => ({ payload: await scenariosService.listScenarios(deps) }),
  }),
  defineRoute({
    operationId: 'scenarios.run',
    method: 'POST',
    path: '/v1/scenarios/run',
    family: 'scenarios',
    summary: 'run a named scenario',
    description:
      "Starts the scenario as a workflow (`scenario-scn_…`) that drives this api as two principals of the run's own, in the shared context `scenario:<run_id>`, judges what it observed against the known outcome and stores a JSON and a Markdown report (`scenarios/<run_id>/report.{json,md}`). Answers 200 with the verdict when the run ends within 10 s, else 202 with the run in progress (`Location`: `/v1/scenarios`, whose `newest_runs` show it). `params` is checked against the scenario's schema (422 naming each problem); `params.expect` replaces expected values (a false one makes the run `failed`).",
    request: { body: { name: 'RunScenarioRequest', schema: runScenarioRequest } },
    responses: {
      200: { description: 'The run, judged.', schema: envelope(scenarios.scenarioRunView) },
      202: { description: 'The run, in progress.', schema: envelope(scenarios.scenarioRunView) },
    },
    handler: async (req, deps) => {
      const { run, done } = await scenariosService.runScenario(
        deps,
        req.auth,
        req.body,
        ownAddress(req.ctx),
      );
      if (done) return { payload: run };
      return { status: 202, payload: run, headers: { Location: '/v1/scenarios' } };
    },
  }),
];
