import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { call } from '../helpers/http';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * The OpenAPI document states the cross-field rules the server enforces (issue 40): a body
 * the document calls valid is one the server does not refuse for its shape. Each case is a
 * body that breaks one rule: the document's own schema must refuse it (read with a JSON
 * Schema 2020-12 validator, as generated clients and fuzzers read it), and the server must
 * answer 422 with the rule's message at the same place.
 */
let app: TestApp;
let components: Record<string, unknown>;
let paths: Record<string, Record<string, { parameters?: { name: string; schema: object }[] }>>;
beforeAll(async () => {
  app = await startTestApp('openapi_rules');
  const doc = await call<{ components: { schemas: Record<string, unknown> }; paths: typeof paths }>(
    app.url,
    'GET',
    '/openapi.json',
  );
  components = doc.body.components.schemas;
  paths = doc.body.paths;
});
afterAll(() => app.close());

/** Whether the document's component schema `name` accepts `body`. */
function documentAccepts(name: string, body: unknown): boolean {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  for (const [id, schema] of Object.entries(components)) {
    ajv.addSchema(schema as object, `#/components/schemas/${id}`);
  }
  const validate = ajv.compile({ $ref: `#/components/schemas/${name}` });
  return validate(body);
}

/** Whether the document's schema of query parameter `name` of `GET path` accepts `value`. */
function queryAccepts(path: string, name: string, value: string): boolean {
  const parameter = paths[path]['get'].parameters!.find((p) => p.name === name)!;
  return addFormats(new Ajv2020({ strict: false })).compile(parameter.schema)(value);
}

interface Case {
  rule: string;
  component: string;
  path: string;
  body: Record<string, unknown>;
  /** Where the 422 points, and what it says. */
  loc: string[];
  msg: string;
}

const OBJECT = 'obj_01JGFJJZ0002T1SERKJXE2WHCB';

const CASES: Case[] = [
  {
    rule: 'membrane: subject and payload are exclusive',
    component: 'MembraneRenderRequest',
    path: '/v1/membrane/render/world',
    body: { format: 'json', subject: {}, payload: {} },
    loc: ['body', 'subject'],
    msg: 'not both',
  },
  {
    rule: 'repair: to_version only with restore_last_good',
    component: 'RepairRequest',
    path: '/v1/repair/request',
    body: { object_id: OBJECT, strategy: 'revalidate', to_version: 1 },
    loc: ['body', 'strategy'],
    msg: 'to_version is only for the restore_last_good strategy',
  },
  {
    rule: 'repair: to_version and checkpoint_id are exclusive',
    component: 'RepairRequest',
    path: '/v1/repair/request',
    body: {
      object_id: OBJECT,
      strategy: 'restore_last_good',
      to_version: 1,
      checkpoint_id: 'chk_01JGFJJZ0002T1SERKJXE2WHCB',
    },
    loc: ['body', 'checkpoint_id'],
    msg: 'give to_version or checkpoint_id, not both',
  },
  {
    rule: 'notify needs a message',
    component: 'ExternalActionRequest',
    path: '/v1/external-actions/dry-run',
    body: { action_kind: 'notify', target: {}, parameters: {}, bounds: {} },
    loc: ['body', 'parameters', 'message'],
    msg: 'notify needs parameters.message',
  },
  {
    rule: 'webhook.post needs a URL',
    component: 'ExternalActionRequest',
    path: '/v1/external-actions/dry-run',
    body: { action_kind: 'webhook.post', target: {}, parameters: {}, bounds: {} },
    loc: ['body', 'target', 'url'],
    msg: 'webhook.post needs target.url',
  },
  {
    rule: 'world.update_object needs a patch',
    component: 'ExternalActionRequest',
    path: '/v1/external-actions/dry-run',
    body: {
      action_kind: 'world.update_object',
      target: { world_object_ref: OBJECT },
      parameters: {},
      bounds: {},
    },
    loc: ['body', 'parameters', 'patch'],
    msg: 'world.update_object needs parameters.patch',
  },
  {
    rule: 'prune-ledgers: a real prune needs confirm',
    component: 'PruneLedgersRequest',
    path: '/v1/admin/prune-ledgers',
    body: { older_than: '2000-01-01T00:00:00Z' },
    loc: ['body', 'confirm'],
    msg: 'a real prune needs confirm: "delete" (or dry_run: true)',
  },
  {
    rule: 'membrane: svg only from the world and runtime renderers',
    component: 'MembraneEvidenceRenderRequest',
    path: '/v1/membrane/render/evidence',
    body: { format: 'svg', payload: {} },
    loc: ['body', 'format'],
    msg: 'Input should be',
  },
  {
    rule: 'membrane: the aboutness renderer needs subject.handle',
    component: 'MembraneAboutnessRenderRequest',
    path: '/v1/membrane/render/aboutness',
    body: { format: 'json', subject: {} },
    loc: ['body', 'subject', 'handle'],
    msg: 'the aboutness renderer needs subject.handle',
  },
  {
    rule: 'membrane: the repair renderer needs a subject (or a payload)',
    component: 'MembraneRepairRenderRequest',
    path: '/v1/membrane/render/repair',
    body: { format: 'markdown' },
    loc: ['body', 'subject'],
    msg: 'the repair renderer needs subject.repair_id or subject.object_id',
  },
  {
    rule: 'substrate compile: seed or pattern, not both',
    component: 'SubstrateCompileRequest',
    path: '/v1/substrates/compile',
    body: {
      scaffold: 'life-lattice',
      params: { width: 9, rule: 'B3/S23', ticks: 1, seed: 1, pattern: 'glider' },
    },
    loc: ['body', 'params'],
    msg: 'give `seed` (a random start) or `pattern` (an explicit one), not both',
  },
  {
    rule: 'substrate compile: density only with seed',
    component: 'SubstrateCompileRequest',
    path: '/v1/substrates/compile',
    body: {
      scaffold: 'life-lattice',
      params: { width: 9, rule: 'B3/S23', ticks: 1, pattern: 'glider', density: 0.5 },
    },
    loc: ['body', 'params', 'seed'],
    msg: '`density` applies to a random start only',
  },
  {
    rule: 'substrate compile: life-lattice takes a B/S rule',
    component: 'SubstrateCompileRequest',
    path: '/v1/substrates/compile',
    body: { scaffold: 'life-lattice', params: { width: 9, rule: 30, ticks: 1, seed: 1 } },
    loc: ['body', 'params', 'rule'],
    msg: 'life-lattice takes a B/S rule',
  },
];

describe('cross-field rules in the OpenAPI document', () => {
  it.each(CASES)('$rule', async ({ component, path, body, loc, msg }) => {
    expect(documentAccepts(component, body)).toBe(false);
    const answer = await call<{ detail: { loc: string[]; msg: string }[] }>(app.url, 'POST', path, {
      key: app.adminKey,
      body,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc, msg: expect.stringContaining(msg) as unknown }),
      ]),
    );
  });

  it('aboutness: a handle names one of the kinds the server resolves', async () => {
    expect(queryAccepts('/v1/aboutness', 'handle', 'aaa_0000000000')).toBe(false);
    expect(queryAccepts('/v1/aboutness', 'handle', 'obj_0000000000')).toBe(true);
    expect(queryAccepts('/v1/aboutness', 'handle', 'ctx:work-1')).toBe(true);
    const answer = await call(app.url, 'GET', '/v1/aboutness?handle=aaa_0000000000', {
      key: app.adminKey,
    });
    expect(answer.status).toBe(422);
  });

  it('session steps: the arguments each command takes', async () => {
    const closeWithText = { input_packet: { command: 'close', args: { text: 'bye' } } };
    const noteWithoutText = { input_packet: { command: 'note', args: { refs: [] } } };
    expect(documentAccepts('SessionStepRequest', closeWithText)).toBe(false);
    expect(documentAccepts('SessionStepRequest', noteWithoutText)).toBe(false);
    expect(
      documentAccepts('SessionStepRequest', {
        input_packet: { command: 'note', args: { text: 'x' } },
      }),
    ).toBe(true);
    const session = await call<{ payload: { session_id: string } }>(
      app.url,
      'POST',
      '/v1/sessions',
      {
        key: app.adminKey,
        body: {},
      },
    );
    const step = (body: unknown) =>
      call<{ detail: { loc: string[]; type: string }[] }>(
        app.url,
        'POST',
        `/v1/sessions/${session.body.payload.session_id}/step`,
        { key: app.adminKey, body },
      );
    const extra = await step(closeWithText);
    expect(extra.status).toBe(422);
    expect(extra.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'input_packet', 'args', 'text'],
        type: 'extra_forbidden',
      }),
    ]);
    const missing = await step(noteWithoutText);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'input_packet', 'args', 'text'], type: 'missing' }),
    ]);
  });

  it('session steps: a command with a required argument needs args', async () => {
    const bare = { input_packet: { command: 'note' } };
    expect(documentAccepts('SessionStepRequest', bare)).toBe(false);
    expect(documentAccepts('SessionStepRequest', { input_packet: { command: 'close' } })).toBe(
      true,
    );
    const session = await call<{ payload: { session_id: string } }>(
      app.url,
      'POST',
      '/v1/sessions',
      { key: app.adminKey, body: {} },
    );
    const res = await call<{ detail: { loc: string[] }[] }>(
      app.url,
      'POST',
      `/v1/sessions/${session.body.payload.session_id}/step`,
      { key: app.adminKey, body: bare },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]?.loc.slice(0, 3)).toEqual(['body', 'input_packet', 'args']);
  });

  it('the world renderer: an svg from a payload needs its objects and relationships', async () => {
    const empty = { format: 'svg', payload: {} };
    expect(documentAccepts('MembraneWorldRenderRequest', empty)).toBe(false);
    expect(documentAccepts('MembraneWorldRenderRequest', { format: 'json', payload: {} })).toBe(
      true,
    );
    expect(
      documentAccepts('MembraneWorldRenderRequest', {
        format: 'svg',
        payload: { objects: [], relationships: [] },
      }),
    ).toBe(true);
    const res = await call<{ detail: { loc: string[]; msg: string }[] }>(
      app.url,
      'POST',
      '/v1/membrane/render/world',
      { key: app.adminKey, body: empty },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]?.msg).toContain(
      'a world picture needs `objects` and `relationships`',
    );
    // Found by fuzzing: items the picture cannot draw were a 500.
    for (const payload of [
      { objects: [null], relationships: [] },
      { objects: [{ object_id: 'a', name: 1, kind: 'k' }], relationships: [] },
      { objects: [], relationships: [{ from: 'a', to: 'b' }] },
    ]) {
      const body = { format: 'svg', payload };
      expect(documentAccepts('MembraneWorldRenderRequest', body)).toBe(false);
      const answer = await call(app.url, 'POST', '/v1/membrane/render/world', {
        key: app.adminKey,
        body,
      });
      expect([payload, answer.status]).toEqual([payload, 422]);
    }
  });

  it("scenarios: each scenario's parameters", async () => {
    const stray = { scenario: 'approval-drill', params: { side: 8 } };
    expect(documentAccepts('RunScenarioRequest', stray)).toBe(false);
    expect(
      documentAccepts('RunScenarioRequest', { scenario: 'glider-transit', params: { side: 8 } }),
    ).toBe(true);
    const res = await call<{ detail: { loc: string[]; type: string }[] }>(
      app.url,
      'POST',
      '/v1/scenarios/run',
      { key: app.adminKey, body: stray },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'params', 'side'],
      type: 'extra_forbidden',
    });
  });

  it('free-form values: numbers within ±(2^53 − 1), keys and arrays the store can hold', async () => {
    const propose = (parameters: unknown) => ({
      action_kind: 'notify',
      target: {},
      parameters: { message: 'hi', ...(parameters as object) },
      bounds: {},
    });
    const cases: [string, unknown, string, unknown[]][] = [
      [
        'ExternalActionRequest',
        propose({ n: 2 ** 60 }),
        '/v1/external-actions/dry-run',
        ['body', 'parameters', 'n'],
      ],
      [
        'ExternalActionRequest',
        propose({ deep: [{ n: -1e300 }] }),
        '/v1/external-actions/dry-run',
        ['body', 'parameters', 'deep', 0, 'n'],
      ],
      [
        'ExternalActionRequest',
        propose({ 'a.b': 1 }),
        '/v1/external-actions/dry-run',
        ['body', 'parameters', 'a.b'],
      ],
      [
        'ExternalActionRequest',
        propose({ $set: 1 }),
        '/v1/external-actions/dry-run',
        ['body', 'parameters', '$set'],
      ],
      [
        'ExternalActionRequest',
        propose({ grid: [[1]] }),
        '/v1/external-actions/dry-run',
        ['body', 'parameters', 'grid', 0],
      ],
      [
        'MembraneRenderRequest',
        { format: 'json', payload: { n: 2 ** 60 } },
        '/v1/membrane/render/runtime',
        ['body', 'payload', 'n'],
      ],
    ];
    for (const [component, body, path, loc] of cases) {
      expect([component, body, documentAccepts(component, body)]).toEqual([component, body, false]);
      const res = await call<{ detail: { loc: unknown[] }[] }>(app.url, 'POST', path, {
        key: app.adminKey,
        body,
      });
      expect([path, res.status, res.body.detail]).toEqual([
        path,
        422,
        [expect.objectContaining({ loc })],
      ]);
    }
    // Numbers are bounded inside arrays of arrays too (which a render, storing nothing, takes).
    expect(
      documentAccepts('MembraneRenderRequest', { format: 'json', payload: { a: [[2 ** 60]] } }),
    ).toBe(false);
    // What a render does not store may hold any key, and arrays in arrays.
    const unstored = { format: 'json', payload: { 'a.b': [[1]], $x: 9007199254740991 } };
    expect(documentAccepts('MembraneRenderRequest', unstored)).toBe(true);
    const rendered = await call(app.url, 'POST', '/v1/membrane/render/runtime', {
      key: app.adminKey,
      body: unstored,
    });
    expect(rendered.status).toBe(200);
    expect(documentAccepts('ExternalActionRequest', propose({ n: 9007199254740991, s: 'x' }))).toBe(
      true,
    );
  });

  it('policies: only an organization-scoped policy sets the organization-wide limits', async () => {
    const keyScoped = {
      name: 'p',
      scope: { entitlement: 'sandbox' },
      requests_per_minute: 10,
      daily_quota: 100,
      organization_concurrent_deployments: 2,
    };
    expect(documentAccepts('CreatePolicyRequest', keyScoped)).toBe(false);
    const { organization_concurrent_deployments: _dropped, ...plain } = keyScoped;
    expect(documentAccepts('CreatePolicyRequest', plain)).toBe(true);
    const res = await call<{ detail: { loc: string[]; msg: string }[] }>(
      app.url,
      'POST',
      '/v1/admin/policies/create',
      { key: app.adminKey, body: keyScoped },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'organization_concurrent_deployments'],
      msg: 'only an organization-scoped policy sets this',
    });
  });

  it("events: a payload's top-level field names are 1..128 characters", () => {
    const event = (payload: object) => ({
      source_family: 'crm',
      source_event_id: 'e1',
      event_type: 'object.updated',
      occurred_at: '2026-01-01T00:00:00.000Z',
      world_object_ref: 'obj_01JGFJJZ0002T1SERKJXE2WHCB',
      payload,
    });
    const component = 'ExternalEventRequest';
    expect(documentAccepts(component, event({ '': 1 }))).toBe(false);
    expect(documentAccepts(component, event({ ['x'.repeat(129)]: 1 }))).toBe(false);
    expect(documentAccepts(component, event({ status: 'ok' }))).toBe(true);
  });

  it('a query string too long for the HTTP server is a documented 431', () => {
    const names = paths['/v1/external-actions/names']['get'] as unknown as {
      responses: Record<string, unknown>;
    };
    expect(Object.keys(names.responses)).toContain('431');
  });

  it('still calls valid bodies valid', () => {
    expect(documentAccepts('MembraneRenderRequest', { format: 'json', subject: {} })).toBe(true);
    expect(
      documentAccepts('RepairRequest', {
        object_id: OBJECT,
        strategy: 'restore_last_good',
        to_version: 1,
      }),
    ).toBe(true);
    expect(
      documentAccepts('ExternalActionRequest', {
        action_kind: 'notify',
        target: {},
        parameters: { message: 'hi' },
        bounds: {},
      }),
    ).toBe(true);
  });
});
