import pino from 'pino';
import { MongoClient } from 'mongodb';
import { RateLimiter, type LimitRule } from '../../src/auth/rate-limiter';
import { createRateCountersRepo } from '../../src/store/rate-counters.repo';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

const rules: LimitRule[] = [
  { name: 'minute', limit: 100, code: 'rate_limited' },
  { name: 'day', limit: 5, code: 'quota_exceeded' },
];

let client: MongoClient;
const dbName = freshDbName('limiter');
beforeAll(async () => {
  client = await MongoClient.connect(testMongoUri());
});
afterAll(async () => {
  await client.db(dbName).dropDatabase();
  await client.close();
});

function limiterAt(clock: { now: number }, instanceId: string) {
  return new RateLimiter({
    repo: createRateCountersRepo(client.db(dbName)),
    instanceId,
    syncIntervalMs: 1000,
    logger: pino({ level: 'silent' }),
    now: () => clock.now,
  });
}

describe('RateLimiter (real store, controlled clock)', () => {
  it('refuses past the daily quota with quota_exceeded until 00:00 UTC, then resets', async () => {
    const clock = { now: Date.parse('2026-03-10T23:58:00.000Z') };
    const limiter = limiterAt(clock, 'quota-1');
    for (let i = 0; i < 5; i += 1) expect((await limiter.check('key:q', rules)).allowed).toBe(true);
    const refused = await limiter.check('key:q', rules);
    expect(refused.allowed).toBe(false);
    expect(refused.violated?.code).toBe('quota_exceeded');
    expect(refused.retryAfterSeconds).toBe(120);
    expect(refused.headers['RateLimit-Remaining']).toBe('0');

    clock.now = Date.parse('2026-03-11T00:00:01.000Z');
    const next = await limiter.check('key:q', rules);
    expect(next.allowed).toBe(true);
    expect(next.headers['RateLimit-Remaining']).toBe('4');
  });

  it('keeps the day count across a restart (a new instance reads the shared shards)', async () => {
    const clock = { now: Date.parse('2026-04-01T12:00:00.000Z') };
    const first = limiterAt(clock, 'restart-1');
    for (let i = 0; i < 3; i += 1) await first.check('key:r', rules);
    await first.stop();
    const second = limiterAt(clock, 'restart-2');
    const decision = await second.check('key:r', rules);
    expect(decision.headers['RateLimit-Remaining']).toBe('1');
    expect((await second.check('key:r', rules)).allowed).toBe(true);
    expect((await second.check('key:r', rules)).allowed).toBe(false);
  });

  it('resets the minute window on the minute', async () => {
    const clock = { now: Date.parse('2026-05-01T10:00:59.000Z') };
    const limiter = limiterAt(clock, 'minute-1');
    const perMinute: LimitRule[] = [{ name: 'minute', limit: 2, code: 'rate_limited' }];
    await limiter.check('key:m', perMinute);
    await limiter.check('key:m', perMinute);
    const refused = await limiter.check('key:m', perMinute);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.now += 1000;
    expect((await limiter.check('key:m', perMinute)).allowed).toBe(true);
  });
});

// At a minute boundary the periodic sync may drop an expired window while a subject's own
// sync is writing it; that sync must finish with the counters it held, not read it back.
describe('RateLimiter: a window expiring while its subject syncs', () => {
  it('finishes the sync with the counters it held', async () => {
    const clock = { now: Date.parse('2026-03-10T12:00:59.000Z') };
    const repo = createRateCountersRepo(client.db(dbName));
    const gate: { hold?: Promise<void> } = {};
    let writing: () => void = () => undefined;
    const gated = {
      ...repo,
      writeShards: async (shards: Parameters<typeof repo.writeShards>[0]) => {
        if (shards.length > 0 && gate.hold) {
          writing();
          await gate.hold;
        }
        return repo.writeShards(shards);
      },
    };
    const limiter = new RateLimiter({
      repo: gated,
      instanceId: 'expiring-1',
      syncIntervalMs: 1000,
      logger: pino({ level: 'silent' }),
      now: () => clock.now,
    });
    const minuteOnly: LimitRule[] = [{ name: 'minute', limit: 100, code: 'rate_limited' }];
    // Up to this instance's budget of what was left: no sync needed yet.
    for (let i = 0; i < 25; i += 1) await limiter.check('key:exp', minuteOnly);

    let release: () => void = () => undefined;
    gate.hold = new Promise((resolve) => (release = resolve));
    const started = new Promise<void>((resolve) => (writing = resolve));
    const pending = limiter.check('key:exp', minuteOnly); // over budget: syncs, writing
    await started;
    clock.now += 2_000; // the minute ends …
    await limiter.syncAll(); // … and the periodic sync drops the expired window
    release();
    await expect(pending).resolves.toMatchObject({ allowed: true });
  });
});

// A periodic write of an older count must never land after a subject's own write of a newer
// one: the other instance would read a count that went back, and admit past the limit.
describe('RateLimiter: writes of one shard', () => {
  it('land in the order their counts were taken', async () => {
    const clock = { now: Date.parse('2026-03-12T12:00:10.000Z') };
    const repo = createRateCountersRepo(client.db(dbName));
    const gate: { hold?: Promise<void> } = {};
    const gated = {
      ...repo,
      writeShards: async (shards: Parameters<typeof repo.writeShards>[0]) => {
        const hold = gate.hold;
        gate.hold = undefined;
        if (hold) await hold;
        return repo.writeShards(shards);
      },
    };
    const limiter = new RateLimiter({
      repo: gated,
      instanceId: 'ordered-1',
      syncIntervalMs: 1000,
      logger: pino({ level: 'silent' }),
      now: () => clock.now,
    });
    const minuteOnly: LimitRule[] = [{ name: 'minute', limit: 100, code: 'rate_limited' }];
    for (let i = 0; i < 10; i += 1) await limiter.check('key:ord', minuteOnly);

    let release: () => void = () => undefined;
    gate.hold = new Promise((resolve) => (release = resolve));
    const periodic = limiter.syncAll(); // publishes 10, held in flight
    for (let i = 0; i < 15; i += 1) await limiter.check('key:ord', minuteOnly);
    const overBudget = limiter.check('key:ord', minuteOnly); // publishes 26 with its reservation
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([periodic, overBudget]);

    const [shard] = await repo.readShards(['key:ord'], [`m:${Math.floor(clock.now / 60_000)}`]);
    expect(shard.count).toBe(26);
  });

  it('keeps what was admitted during a sync counted against the next budget', async () => {
    const clock = { now: Date.parse('2026-03-12T12:05:10.000Z') };
    const repo = createRateCountersRepo(client.db(dbName));
    const gate: { hold?: Promise<void> } = {};
    const gated = {
      ...repo,
      readShards: async (...args: Parameters<typeof repo.readShards>) => {
        const hold = gate.hold;
        gate.hold = undefined;
        if (hold) await hold;
        return repo.readShards(...args);
      },
    };
    let writes = 0;
    const counted = {
      ...gated,
      writeShards: async (shards: Parameters<typeof repo.writeShards>[0]) => {
        writes += shards.length;
        return repo.writeShards(shards);
      },
    };
    const limiter = new RateLimiter({
      repo: counted,
      instanceId: 'budget-1',
      syncIntervalMs: 1000,
      logger: pino({ level: 'silent' }),
      now: () => clock.now,
    });
    const minuteOnly: LimitRule[] = [{ name: 'minute', limit: 100, code: 'rate_limited' }];
    for (let i = 0; i < 10; i += 1) await limiter.check('key:bud', minuteOnly);

    let release: () => void = () => undefined;
    gate.hold = new Promise((resolve) => (release = resolve));
    const periodic = limiter.syncAll(); // publishes 10, then its read is held
    for (let i = 0; i < 10; i += 1) await limiter.check('key:bud', minuteOnly); // unpublished
    release();
    await periodic;
    // 90 were left as published, a budget of 22; 10 of it went unpublished during the sync.
    writes = 0;
    for (let i = 0; i < 12; i += 1) await limiter.check('key:bud', minuteOnly);
    expect(writes).toBe(0);
    await limiter.check('key:bud', minuteOnly);
    expect(writes).toBe(1);
  });
});
