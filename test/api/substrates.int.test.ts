import { storedIn } from '../helpers/collections';
import { createHash } from 'node:crypto';
import { createSubstrate } from '../../src/domain/substrates/engine';
import { newId } from '../../src/lib/ids';
import { call, type HttpResult } from '../helpers/http';
import { createTestKey, type TestKey } from '../helpers/keys';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { startTestWorker, type TestWorker } from '../helpers/test-worker';

interface Deployment {
  deployment_id: string;
  spec: { scaffold: string; envelope: string; params: Record<string, unknown> };
  manifest_artifact_id: string | null;
  manifest_sha256: string | null;
  initial_digest: string | null;
  status: string;
  stage: string;
  progress: { tick: number; ticks_total: number };
  error: string | null;
  final: { tick: number; population: number; digest: string } | null;
  assay: { pack_id: string; passed: boolean; report_artifact_id: string } | null;
  stage_timestamps: Record<string, string>;
  workflow_id: string;
}
interface Artifact {
  artifact_id: string;
  kind: string;
  path: string;
  content_type: string;
  size: number;
  sha256: string;
}
type Body<T> = {
  ok: boolean;
  payload: T;
  error: { code: string; message: string } & Record<string, unknown>;
  detail: Array<{ loc: Array<string | number>; msg: string; type: string }>;
};
interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

let app: TestApp;
let worker: TestWorker;
let key: TestKey;

beforeAll(async () => {
  app = await startTestApp('substrates');
  worker = await startTestWorker(app.deps);
  key = await createTestKey(app, { entitlement: 'strategic', accessLayer: 2 });
});
afterAll(async () => {
  await worker.stop();
  await app.close();
});

const get = <T>(path: string) => call<Body<T>>(app.url, 'GET', path, { key: key.apiKey });
const post = <T>(path: string, body: unknown) =>
  call<Body<T>>(app.url, 'POST', path, { key: key.apiKey, body });

const gliderSpec = (ticks = 8) => ({
  scaffold: 'life-lattice',
  params: { width: 16, height: 16, rule: 'B3/S23', ticks, pattern: 'glider' },
});

/** Polls a deployment until it leaves `running`. */
async function settled(deploymentId: string, timeoutMs = 30_000): Promise<Deployment> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await get<Deployment>(`/v1/substrates/deployments/${deploymentId}`);
    expect(res.status).toBe(200);
    if (res.body.payload.status !== 'running') return res.body.payload;
    if (Date.now() > deadline) throw new Error(`deployment still ${res.body.payload.stage}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function deployReady(spec: unknown): Promise<Deployment> {
  const res = await post<Deployment>('/v1/substrates/deploy', { spec });
  expect(res.status).toBe(201);
  const done = await settled(res.body.payload.deployment_id);
  expect(done).toMatchObject({ status: 'ready', stage: 'ready', error: null });
  return done;
}

/** Live cells of observed window rows, as `x,y` strings in lattice coordinates. */
const liveOf = (window: { x: number; y: number; rows: string[] }): string[] =>
  window.rows.flatMap((row, dy) =>
    [...row].flatMap((c, dx) => (c === '#' ? [`${window.x + dx},${window.y + dy}`] : [])),
  );

describe('registries', () => {
  it('list and get scaffolds, envelopes, recognizer packs and certification packs', async () => {
    const scaffolds = await get<Page<{ scaffold_id: string; params: object }>>(
      '/v1/substrates/scaffolds',
    );
    expect(scaffolds.status).toBe(200);
    expect(scaffolds.body.payload.items.map((s) => s.scaffold_id)).toEqual([
      'elementary-1d',
      'life-lattice',
    ]);
    const lattice = await get<{ default_envelope: string; params: { required: string[] } }>(
      '/v1/substrates/scaffolds/life-lattice',
    );
    expect(lattice.body.payload.default_envelope).toBe('lattice-standard');
    expect(lattice.body.payload.params.required).toEqual(['width', 'rule', 'ticks']);

    const envelope = await get<{ max_width: number; allowed_rules: string[] }>(
      '/v1/substrates/envelopes/conway-classroom',
    );
    expect(envelope.body.payload).toMatchObject({ max_width: 256, allowed_rules: ['B3/S23'] });
    const first = await get<Page<{ envelope_id: string }>>('/v1/substrates/envelopes?limit=2');
    const rest = await get<Page<{ envelope_id: string }>>(
      `/v1/substrates/envelopes?limit=2&cursor=${first.body.payload.next_cursor}`,
    );
    expect(
      [...first.body.payload.items, ...rest.body.payload.items].map((e) => e.envelope_id),
    ).toEqual(['conway-classroom', 'elementary-standard', 'lattice-large', 'lattice-standard']);
    expect(rest.body.payload.next_cursor).toBeNull();

    const recognizer = await get<{
      motifs: Array<{ motif: string; class: string; period: number }>;
    }>('/v1/substrates/recognizers/life-standard');
    expect(recognizer.body.payload.motifs).toContainEqual({
      motif: 'glider',
      class: 'spaceship',
      period: 4,
    });
    const packs = await get<Page<{ pack_id: string; assays: Array<{ assay: string }> }>>(
      '/v1/substrates/certification-packs',
    );
    expect(packs.body.payload.items.map((p) => p.pack_id)).toEqual([
      'conformance',
      'oscillation',
      'standard',
    ]);
    const standard = await get<{ assays: Array<{ assay: string }> }>(
      '/v1/substrates/certification-packs/standard',
    );
    expect(standard.body.payload.assays.map((a) => a.assay)).toEqual([
      'determinism',
      'envelope_conformance',
      'liveness',
      'period',
    ]);
  });

  it('answers 404 naming the known ids, and 422 for a forged cursor', async () => {
    for (const path of [
      '/v1/substrates/scaffolds/nope',
      '/v1/substrates/envelopes/nope',
      '/v1/substrates/recognizers/nope',
      '/v1/substrates/certification-packs/nope',
    ]) {
      const res = await get<unknown>(path);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toMatch(/known: /);
    }
    // A registry cursor is an entry id: any id is a place in name order, a path is not one.
    expect((await get<unknown>('/v1/substrates/scaffolds?cursor=..%2Fx')).status).toBe(422);
    const after = await get<{ items: { scaffold_id: string }[] }>(
      '/v1/substrates/scaffolds?cursor=zzz',
    );
    expect([after.status, after.body.payload.items]).toEqual([200, []]);
  });
});

describe('POST /v1/substrates/validate', () => {
  it('accepts a valid spec and fills in the defaults', async () => {
    const res = await post<{ valid: boolean; envelope_id: string; normalized_spec: unknown }>(
      '/v1/substrates/validate',
      { scaffold: 'life-lattice', params: { width: 64, rule: 'B32/S3', ticks: 10, seed: 7 } },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload).toEqual({
      valid: true,
      violations: [],
      envelope_id: 'lattice-standard',
      normalized_spec: {
        scaffold: 'life-lattice',
        envelope: 'lattice-standard',
        params: { width: 64, height: 64, rule: 'B23/S3', ticks: 10, seed: 7, density: 0.5 },
      },
    });
  });

  it('names every violation with its path and rule (200, valid false)', async () => {
    const res = await post<{ valid: boolean; violations: Array<{ path: string; rule: string }> }>(
      '/v1/substrates/validate',
      {
        scaffold: 'life-lattice',
        envelope: 'conway-classroom',
        params: { width: 300, height: 10, rule: 'B36/S23', ticks: 20_000, density: 0.3 },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.payload.valid).toBe(false);
    expect(res.body.payload.violations.map((v) => `${v.path}:${v.rule}`).sort()).toEqual(
      [
        'params:start',
        'params.density:density_needs_seed',
        'params.width:max_width',
        'params.ticks:max_ticks',
        'params.rule:allowed_rules',
      ].sort(),
    );
  });

  it('names rule, pattern and envelope problems', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { scaffold: 'life-lattice', params: { width: 9, rule: 'B33/S2', ticks: 1, seed: 1 } },
        'params.rule:rule_syntax',
      ],
      [
        { scaffold: 'life-lattice', params: { width: 9, rule: 30, ticks: 1, seed: 1 } },
        'params.rule:rule_type',
      ],
      [
        {
          scaffold: 'life-lattice',
          params: { width: 9, rule: 'B3/S23', ticks: 1, pattern: 'nonesuch' },
        },
        'params.pattern:pattern_syntax',
      ],
      [
        {
          scaffold: 'life-lattice',
          params: { width: 4, rule: 'B3/S23', ticks: 1, pattern: 'r-pentomino', seed: 1 },
        },
        'params.pattern:one_start',
      ],
      [
        {
          scaffold: 'life-lattice',
          params: { width: 2, rule: 'B3/S23', ticks: 1, pattern: 'glider' },
        },
        'params.pattern:pattern_fits',
      ],
      [
        {
          scaffold: 'life-lattice',
          envelope: 'nope',
          params: { width: 9, rule: 'B3/S23', ticks: 1, seed: 1 },
        },
        'envelope:known_envelope',
      ],
      [
        {
          scaffold: 'elementary-1d',
          envelope: 'lattice-standard',
          params: { width: 9, rule: 30, ticks: 1, seed: 1 },
        },
        'envelope:scaffold_allowed',
      ],
      [
        { scaffold: 'elementary-1d', params: { width: 9, height: 3, rule: 30, ticks: 1, seed: 1 } },
        'params.height:one_row',
      ],
    ];
    for (const [spec, expected] of cases) {
      const res = await post<{ valid: boolean; violations: Array<{ path: string; rule: string }> }>(
        '/v1/substrates/validate',
        spec,
      );
      expect(res.status).toBe(200);
      expect(res.body.payload.violations.map((v) => `${v.path}:${v.rule}`)).toContain(expected);
    }
  });

  it('answers 422 for a malformed request', async () => {
    for (const body of [
      {},
      { scaffold: 'life-lattice' },
      { scaffold: 'hex', params: { width: 9, rule: 'B3/S23', ticks: 1 } },
      { scaffold: 'life-lattice', params: { width: 0, rule: 'B3/S23', ticks: 1 } },
      { scaffold: 'life-lattice', params: { width: 9, rule: 'B3/S23', ticks: 1, extra: 1 } },
    ]) {
      expect((await post<unknown>('/v1/substrates/validate', body)).status).toBe(422);
    }
  });
});

describe('POST /v1/substrates/compile and artifacts', () => {
  it('gives the same manifest artifact, byte for byte, for the same spec', async () => {
    const spec = {
      scaffold: 'life-lattice',
      params: { width: 32, rule: 'B3/S23', ticks: 5, seed: 42 },
    };
    type Compiled = { artifact: Artifact; manifest: Record<string, unknown>; created: boolean };
    const first = await post<Compiled>('/v1/substrates/compile', spec);
    expect(first.status).toBe(200);
    // The same spec spelled differently: digits out of order, keys in another order.
    const again = await post<Compiled>('/v1/substrates/compile', {
      params: { seed: 42, ticks: 5, rule: 'B3/S32', width: 32, height: 32 },
      scaffold: 'life-lattice',
    });
    const a = first.body.payload;
    const b = again.body.payload;
    expect(b.artifact).toEqual(a.artifact);
    expect(b.created).toBe(false);
    expect(a.artifact).toMatchObject({ kind: 'manifest', content_type: 'application/json' });
    expect(a.artifact.path).toBe(`substrates/manifests/${a.artifact.sha256}.json`);
    expect(a.manifest).toEqual({
      manifest_version: 1,
      scaffold: 'life-lattice',
      envelope: 'lattice-standard',
      rule: 'B3/S23',
      params: { width: 32, height: 32, rule: 'B3/S23', ticks: 5, seed: 42, density: 0.5 },
      engine: expect.objectContaining({ version: '1' }) as unknown,
    });

    const raw1 = await call(app.url, 'GET', `/v1/artifacts/${a.artifact.path}/raw`, {
      key: key.apiKey,
    });
    const raw2 = await call(app.url, 'GET', `/v1/artifacts/${a.artifact.path}/raw`, {
      key: key.apiKey,
    });
    expect(raw1.status).toBe(200);
    expect(raw1.headers.get('content-type')).toMatch(/^application\/json/);
    expect(raw1.headers.get('etag')).toBe(`"${a.artifact.sha256}"`);
    expect(raw1.text).toBe(raw2.text);
    expect(createHash('sha256').update(raw1.text).digest('hex')).toBe(a.artifact.sha256);
    expect(JSON.parse(raw1.text)).toEqual(a.manifest);

    const meta = await get<Artifact & { content: unknown }>(`/v1/artifacts/${a.artifact.path}`);
    expect(meta.body.payload).toMatchObject({ ...a.artifact, content: a.manifest });
    const byId = await get<Artifact>(`/v1/substrates/artifacts/${a.artifact.artifact_id}`);
    expect(byId.body.payload).toEqual(a.artifact);

    // Stored once: one blob.
    expect(
      await storedIn(app.deps.db).artifactBlobs.countDocuments({ _id: a.artifact.sha256 }),
    ).toBe(1);

    const other = await post<Compiled>('/v1/substrates/compile', {
      ...spec,
      params: { ...spec.params, seed: 43 },
    });
    expect(other.body.payload.artifact.sha256).not.toBe(a.artifact.sha256);
  });

  it('answers 422 naming the violations of an invalid spec, and 404 for unknown artifacts', async () => {
    const res = await post<unknown>('/v1/substrates/compile', {
      scaffold: 'life-lattice',
      params: { width: 5000, rule: 'B3/S23', ticks: 1, seed: 1 },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d) => d.loc.join('.'))).toContain('body.params.width');
    expect((await get<unknown>('/v1/substrates/artifacts/art_0123456789abcdef')).status).toBe(404);
    expect((await get<unknown>('/v1/artifacts/substrates/nope.json')).status).toBe(404);
    expect((await get<unknown>('/v1/artifacts/substrates/nope.json/raw')).status).toBe(404);
  });
});

describe('deployments', () => {
  let glider: Deployment;
  beforeAll(async () => {
    glider = await deployReady(gliderSpec(8));
  });

  it('runs validate → compile → deploy → observe → assay → ready', () => {
    expect(Object.keys(glider.stage_timestamps)).toEqual([
      'validating',
      'compiling',
      'deploying',
      'observing',
      'assaying',
      'ready',
    ]);
    expect(glider.progress).toEqual({ tick: 8, ticks_total: 8 });
    expect(glider.manifest_artifact_id).toMatch(/^art_/);
    expect(glider.workflow_id).toBe(`deployment-${glider.deployment_id}`);
    expect(glider.assay).toMatchObject({ pack_id: 'conformance', passed: true });
    expect(glider.final).toMatchObject({ tick: 8, population: 5 });
    const initial = createSubstrate('life-lattice', {
      width: 16,
      height: 16,
      rule: 'B3/S23',
      pattern: 'glider',
    });
    expect(glider.initial_digest).toBe(initial.digest());
  });

  it('observes the glider moving one cell diagonally every 4 ticks', async () => {
    const cellsAt = async (tick: number) => {
      const res = await post<{
        tick: number;
        population: number;
        window: { x: number; y: number; rows: string[] };
      }>('/v1/substrates/observe', {
        deployment_id: glider.deployment_id,
        tick,
        window: { x: 0, y: 0, width: 16, height: 16 },
      });
      expect(res.status).toBe(200);
      expect(res.body.payload.population).toBe(5);
      return liveOf(res.body.payload.window);
    };
    const shift = (cells: string[], d: number) =>
      cells
        .map((c) =>
          c
            .split(',')
            .map((n) => Number(n) + d)
            .join(','),
        )
        .sort();
    const t0 = await cellsAt(0);
    // Tick 4 lies between snapshots: the api steps to it on its engine thread (risk 4).
    const offloaded = app.deps.stepper.offloaded();
    expect((await cellsAt(4)).sort()).toEqual(shift(t0, 1));
    expect(app.deps.stepper.offloaded()).toBe(offloaded + 1);
    expect((await cellsAt(8)).sort()).toEqual(shift(t0, 2));

    const newest = await post<{
      tick: number;
      digest: string;
      bounding_box: unknown;
      window: { rows: string[] };
    }>('/v1/substrates/observe', { deployment_id: glider.deployment_id });
    expect(newest.body.payload.tick).toBe(8);
    expect(newest.body.payload.digest).toBe(glider.final!.digest);
    expect(newest.body.payload.window.rows).toHaveLength(3);

    const future = await post<unknown>('/v1/substrates/observe', {
      deployment_id: glider.deployment_id,
      tick: 9,
    });
    expect(future.status).toBe(409);
    const unknown = await post<unknown>('/v1/substrates/observe', { deployment_id: newId('dep') });
    expect(unknown.status).toBe(404);
  });

  it('recognizes the glider with its phase and heading', async () => {
    const res = await post<{
      motifs: Array<Record<string, unknown>>;
      counts: Record<string, number>;
    }>('/v1/substrates/recognize', { deployment_id: glider.deployment_id, tick: 4 });
    expect(res.status).toBe(200);
    expect(res.body.payload.motifs).toEqual([
      expect.objectContaining({ motif: 'glider', class: 'spaceship', phase: 0, heading: 'SE' }),
    ]);
    expect(res.body.payload.counts).toEqual({ glider: 1 });
    const phase = await post<{ motifs: Array<{ phase: number }> }>('/v1/substrates/recognize', {
      deployment_id: glider.deployment_id,
      tick: 5,
    });
    expect(phase.body.payload.motifs[0].phase).toBe(1);
  });

  it('renders JSON, Markdown and SVG, each stored as an artifact', async () => {
    for (const [format, type] of [
      ['json', 'application/json'],
      ['markdown', 'text/markdown'],
      ['svg', 'image/svg+xml'],
    ]) {
      const res = await post<{
        content_type: string;
        content: unknown;
        artifact_id: string;
        artifact_path: string;
      }>('/v1/substrates/render', { deployment_id: glider.deployment_id, format });
      expect(res.status).toBe(200);
      expect(res.body.payload.content_type.startsWith(type)).toBe(true);
      const raw = await call(
        app.url,
        'GET',
        `/v1/artifacts/${res.body.payload.artifact_path}/raw`,
        { key: key.apiKey },
      );
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')?.startsWith(type)).toBe(true);
      if (format === 'svg') expect(raw.text).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
      if (format === 'markdown') expect(raw.text).toContain(glider.deployment_id);
    }
  });

  it('assays a deployment with a pack: determinism by replay, period, liveness', async () => {
    const blinker = await deployReady({
      scaffold: 'life-lattice',
      params: { width: 12, rule: 'B3/S23', ticks: 10, pattern: 'blinker' },
    });
    const res = await post<{
      passed: boolean;
      assays: Array<{ assay: string; passed: boolean; detail: Record<string, unknown> }>;
      report_artifact_id: string;
    }>('/v1/substrates/assay', { deployment_id: blinker.deployment_id, pack_id: 'standard' });
    expect(res.status).toBe(200);
    expect(res.body.payload.passed).toBe(true);
    const byName = Object.fromEntries(res.body.payload.assays.map((a) => [a.assay, a]));
    expect(byName['determinism'].detail).toMatchObject({ mode: 'full_replay', mismatches: [] });
    expect(byName['period'].detail).toMatchObject({ period: 2 });
    expect(byName['liveness'].detail).toMatchObject({ population: 3 });
    const report = await get<Artifact>(
      `/v1/substrates/artifacts/${res.body.payload.report_artifact_id}`,
    );
    expect(report.body.payload.kind).toBe('assay_report');
    expect(
      (
        await post<unknown>('/v1/substrates/assay', {
          deployment_id: blinker.deployment_id,
          pack_id: 'nope',
        })
      ).status,
    ).toBe(404);
  });

  it('fails the determinism assay when a stored snapshot is tampered with', async () => {
    const run = await deployReady({
      scaffold: 'life-lattice',
      params: { width: 64, rule: 'B3/S23', ticks: 40, seed: 5 },
    });
    const { repos } = app.deps;
    const last = await repos.substrateSnapshots.find(run.deployment_id, 40);
    expect(last).not.toBeNull();
    await storedIn(app.deps.db).substrateSnapshots.updateOne(
      { _id: last!._id },
      { $set: { 'trail.0.digest': '0'.repeat(64) } },
    );
    const res = await post<{ passed: boolean; assays: Array<{ assay: string; passed: boolean }> }>(
      '/v1/substrates/assay',
      { deployment_id: run.deployment_id, pack_id: 'conformance' },
    );
    expect(res.body.payload.passed).toBe(false);
    expect(res.body.payload.assays.find((a) => a.assay === 'determinism')?.passed).toBe(false);
  });

  it('runs elementary-1d rules', async () => {
    const rule90 = await deployReady({
      scaffold: 'elementary-1d',
      params: { width: 31, rule: 90, ticks: 4, pattern: 'single' },
    });
    const rows: string[] = [];
    for (let tick = 0; tick <= 4; tick += 1) {
      const res = await post<{ window: { rows: string[] } }>('/v1/substrates/observe', {
        deployment_id: rule90.deployment_id,
        tick,
        window: { x: 11, y: 0, width: 9, height: 1 },
      });
      rows.push(res.body.payload.window.rows[0]);
    }
    expect(rows).toEqual(['....#....', '...#.#...', '..#...#..', '.#.#.#.#.', '#.......#']);
  });

  it('binds to a live deployment of the same manifest, or deploys a compiled artifact', async () => {
    const bound = await post<Deployment>('/v1/substrates/deploy', {
      spec: gliderSpec(8),
      mode: 'bind',
    });
    expect(bound.status).toBe(200);
    // The newest deployment of this manifest (the glider above, unless another bound since).
    expect(bound.body.payload.manifest_artifact_id).toBe(glider.manifest_artifact_id);
    expect(bound.body.payload.status).toBe('ready');

    const fromArtifact = await post<Deployment>('/v1/substrates/deploy', {
      artifact_id: glider.manifest_artifact_id,
    });
    expect(fromArtifact.status).toBe(201);
    expect(fromArtifact.body.payload.deployment_id).not.toBe(glider.deployment_id);
    const done = await settled(fromArtifact.body.payload.deployment_id);
    expect(done.final?.digest).toBe(glider.final?.digest);

    const concurrent = await Promise.all(
      [1, 2, 3, 4].map(() =>
        post<Deployment>('/v1/substrates/deploy', {
          spec: { ...gliderSpec(12), envelope: 'conway-classroom' },
          mode: 'bind',
        }),
      ),
    );
    expect(concurrent.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(concurrent.map((r) => r.body.payload.deployment_id)).size).toBe(1);

    expect(
      (await post<unknown>('/v1/substrates/deploy', { artifact_id: newId('art') })).status,
    ).toBe(404);
    expect(
      (
        await post<unknown>('/v1/substrates/deploy', {
          artifact_id: glider.assay!.report_artifact_id,
        })
      ).status,
    ).toBe(422);
    expect((await post<unknown>('/v1/substrates/deploy', {})).status).toBe(422);
    const invalid = await post<unknown>('/v1/substrates/deploy', {
      spec: { scaffold: 'life-lattice', params: { width: 9, rule: 'B3/S23', ticks: 1 } },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(['body', 'spec', 'params']);
  });

  it('lists deployments newest first, by stage, with cursor paging', async () => {
    const all = await get<Page<Deployment>>('/v1/substrates/deployments?limit=500');
    const ids = all.body.payload.items.map((d) => d.deployment_id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(ids).toContain(glider.deployment_id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/substrates/deployments?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res: HttpResult<Body<Page<Deployment>>> = await get<Page<Deployment>>(url);
      paged.push(...res.body.payload.items.map((d) => d.deployment_id));
      cursor = res.body.payload.next_cursor;
    } while (cursor);
    expect(paged).toEqual(ids);
    const ready = await get<Page<Deployment>>('/v1/substrates/deployments?stage=ready&limit=500');
    expect(ready.body.payload.items.every((d) => d.stage === 'ready')).toBe(true);
    expect((await get<unknown>(`/v1/substrates/deployments/${newId('dep')}`)).status).toBe(404);
    expect((await get<unknown>('/v1/substrates/deployments?stage=nope')).status).toBe(422);
  });
});
