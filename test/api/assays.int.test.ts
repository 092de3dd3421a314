import { roundRobin, DEFAULT_PAYOFFS } from '../../src/domain/assays/ipd';
import { call } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';

// Social assays (docs/assays.md): the round robin as the engine plays it (the
// engine is checked against axelrod in test/domain/assays), stored and read back.
interface Assay {
  assay_id: string;
  players: string[];
  matches: { a: string; b: string; score_a: number; moves_a: string }[];
  totals: Record<string, number>;
  ranking: { rank: number; player: string; total: number }[];
  artifact: { artifact_id: string; path: string; sha256: string; content_type: string };
}

let app: TestApp;
let institutional: TestKey;
let sandbox: TestKey;
beforeAll(async () => {
  app = await startTestApp('assays');
  [institutional, sandbox] = await Promise.all([
    createTestKey(app, { entitlement: 'institutional', accessLayer: 1 }),
    createTestKey(app, { entitlement: 'sandbox', accessLayer: 0 }),
  ]);
});
afterAll(() => app.close());

const run = (body: Record<string, unknown>, key = institutional) =>
  call<{ payload: Assay }>(app.url, 'POST', '/v1/assays/social/run', { key: key.apiKey, body });

describe('POST /v1/assays/social/run', () => {
  it('plays the round robin, stores it, and the membrane renders it by id', async () => {
    const body = {
      strategies: ['tit_for_tat', 'always_defect', 'random', 'random', 'win_stay_lose_shift'],
      turns: 50,
      repetitions: 2,
      noise: 0.05,
      seed: 99,
    };
    const res = await run(body);
    expect(res.status).toBe(200);
    const assay = res.body.payload;
    expect(assay.assay_id).toMatch(/^asy_/);
    expect(assay.players).toEqual([
      'tit_for_tat',
      'always_defect',
      'random#1',
      'random#2',
      'win_stay_lose_shift',
    ]);
    const expected = roundRobin({
      strategies: body.strategies as never,
      turns: 50,
      repetitions: 2,
      noise: 0.05,
      seed: 99,
      payoffs: DEFAULT_PAYOFFS,
    });
    expect(assay.matches).toEqual(expected.matches);
    expect(assay.totals).toEqual(expected.totals);
    expect(assay.ranking).toEqual(expected.ranking);
    expect(assay.matches).toHaveLength(20);

    // Same body, same seed: the same play (a new id).
    const again = (await run(body)).body.payload;
    expect(again.matches).toEqual(assay.matches);
    expect(again.assay_id).not.toBe(assay.assay_id);

    expect(assay.artifact).toMatchObject({
      path: `assays/${assay.assay_id}/result.json`,
      content_type: 'application/json',
    });
    const stored = await call<{ payload: { sha256: string } }>(
      app.url,
      'GET',
      `/v1/artifacts/${assay.artifact.path}`,
      { key: institutional.apiKey },
    );
    expect(stored.status).toBe(200);
    expect(stored.body.payload.sha256).toBe(assay.artifact.sha256);

    const rendered = await call<{ payload: { body: string } }>(
      app.url,
      'POST',
      '/v1/membrane/render/assay',
      {
        key: institutional.apiKey,
        body: { format: 'json', subject: { assay_id: assay.assay_id } },
      },
    );
    expect(rendered.status).toBe(200);
    expect(JSON.parse(rendered.body.payload.body)).toMatchObject({
      assay_id: assay.assay_id,
      ranking: assay.ranking,
    });
  });

  it('names the known strategies when one is unknown, and holds the bounds', async () => {
    const unknown = await run({ strategies: ['tit_for_tat', 'tit_for_three_tats'], turns: 5 });
    expect(unknown.status).toBe(422);
    const text = JSON.stringify(unknown.body);
    expect(text).toContain('strategies');
    for (const known of ['tit_for_tat', 'grudger', 'win_stay_lose_shift', 'random']) {
      expect(text).toContain(known);
    }
    expect((await run({ strategies: ['grudger'], turns: 5 })).status).toBe(422);
    expect(
      (await run({ strategies: Array(17).fill('grudger') as string[], turns: 5 })).status,
    ).toBe(422);
    expect((await run({ strategies: ['grudger', 'random'], turns: 10_001 })).status).toBe(422);
    expect(
      (await run({ strategies: ['grudger', 'random'], turns: 5, repetitions: 11 })).status,
    ).toBe(422);
    expect((await run({ strategies: ['grudger', 'random'], turns: 5, noise: 0.6 })).status).toBe(
      422,
    );
    const unknownAssay = await call(app.url, 'POST', '/v1/membrane/render/assay', {
      key: institutional.apiKey,
      body: { format: 'json', subject: { assay_id: 'asy_01JZZZZZZZZZZZZZZZZZZZZZZZ' } },
    });
    expect(unknownAssay.status).toBe(404);
  });

  it('is institutional: a sandbox key is refused', async () => {
    const refused = await run({ strategies: ['grudger', 'random'], turns: 5 }, sandbox);
    expect(refused.status).toBe(403);
  });
});
