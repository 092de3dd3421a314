import { join } from 'node:path';
import { runChaos } from '../../bench/chaos/run';

/**
 * The smaller chaos run of `npm test` (docs/chaos.md): 60 s of mixed load on 2 api and 2
 * worker processes of the built service, on servers of its own, while a worker, an api and
 * the Temporal dev server are SIGKILLed in turn. `npm run chaos` also kills FerretDB; that
 * fault is left out here while a worker's MongoDB client may not come back from it
 * (docs/chaos.md, "What it guards against").
 */
describe('chaos (small)', () => {
  it('loses nothing, does nothing twice, and answers only 503 with Retry-After while parts are down', async () => {
    const repoRoot = join(__dirname, '..', '..');
    const result = await runChaos({
      repoRoot,
      servers: {
        repoRoot,
        dataDir: join(repoRoot, '.data', 'test-chaos'),
        ferretdbPort: 27022,
        temporalPort: 17237,
        temporalUiPort: 18237,
      },
      apiPorts: [18595, 18596],
      durationSeconds: 60,
      faults: ['worker', 'api', 'temporal'],
    });
    const v = result.verification;
    expect(v.problems).toEqual([]);
    for (const tally of [v.actions, v.webhooks, v.events, v.deployments]) {
      expect(tally.lost).toBe(0);
      expect(tally.duplicated).toBe(0);
    }
    expect(v.actions.completed).toBeGreaterThan(0);
    expect(v.events.completed).toBeGreaterThan(0);
    expect(v.deployments.digestMismatches).toBe(0);
    expect(v.proofs.failed).toEqual([]);
    expect(result.serverErrorsOutsideSample).toEqual([]);
    expect(result.badErrorsInsideSample).toEqual([]);
    expect(result.passed).toBe(true);
  }, 900_000);
});
