import type { Logger } from 'pino';
import { msUntilUtcMidnight, utcDay } from '../lib/time';
import type { RateCounterShard, RateCountersRepo } from '../store/rate-counters.repo';

/** One window a subject is limited in. */
export interface LimitRule {
  name: 'minute' | 'hour' | 'day';
  limit: number;
  /** The error code a request beyond this rule gets. */
  code: 'rate_limited' | 'quota_exceeded';
}

export interface LimitDecision {
  allowed: boolean;
  /** The rule that refused the request, when refused. */
  violated?: LimitRule;
  /** Seconds until the refusing window ends. */
  retryAfterSeconds: number;
  /** RateLimit-* headers for the rule closest to exhaustion. */
  headers: Record<string, string>;
}

const WINDOW_SECONDS: Record<LimitRule['name'], number> = { minute: 60, hour: 3600, day: 86400 };

interface WindowCounter {
  /** Admitted by this instance in the window. */
  local: number;
  /** Admitted by every other instance, as of the last sync. */
  remote: number;
  /** The local count last written to the shared store. */
  written: number;
  /** How much of `local` was published when this instance last read the shared counts. */
  localAtSync: number;
  expiresAt: number;
  loaded: boolean;
}

interface SubjectState {
  windows: Map<string, WindowCounter>;
  syncing: Promise<void> | undefined;
  lastSeenAt: number;
}

export interface RateLimiterOptions {
  repo: RateCountersRepo;
  instanceId: string;
  /** How often local counts are published and others' counts read back. */
  syncIntervalMs: number;
  logger: Logger;
  now?: () => number;
}

/**
 * A fixed-window limiter whose counts are shared by every api instance through the store.
 *
 * Each instance owns one shard per (subject, window) and is its only writer, so the shared
 * count is the sum of the shards and never needs an atomic read-modify-write. The hot path
 * is in memory: shards are published and read back in one batch every `syncIntervalMs`.
 * Between syncs an instance admits at most a quarter of what was left at its last sync
 * (its budget); past that it syncs first (publishing its count with the pending request
 * reserved). So a window costs O(log limit) round trips per instance, the last few
 * requests before a limit are decided on fresh shared counts, and the overshoot across
 * instances stays within a few requests (docs/governance.md).
 */
export class RateLimiter {
  private readonly subjects = new Map<string, SubjectState>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private lastPruneAt = 0;
  /** The tail of this instance's shard writes, which go out one batch at a time. */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly options: RateLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Starts the background publish/read-back loop. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.syncAll().catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'rate limiter sync failed'),
      );
    }, this.options.syncIntervalMs);
    this.timer.unref();
  }

  /** Stops the loop and publishes the last counts. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.syncAll();
  }

  /**
   * Admits (and counts) one request of `subject`, or refuses it without counting it. The
   * decision comes at once (no promise) when it needs no round trip, which is the hot path:
   * the subject's windows are loaded and this instance is within its budget.
   */
  check(subject: string, rules: LimitRule[]): LimitDecision | Promise<LimitDecision> {
    const nowMs = this.now();
    const state = this.stateOf(subject, nowMs);
    const counters: WindowCounter[] = [];
    let loaded = true;
    for (const rule of rules) {
      const counter = this.counterFor(state, rule, nowMs);
      loaded &&= counter.loaded;
      counters.push(counter);
    }
    if (!loaded) return this.checkAfterSync(subject, state, rules, counters, false);
    const decision = this.decide(rules, counters);
    // Counts only grow within a window, so a refusal on stale counts is already right; an
    // admission beyond the budget is re-decided on fresh counts.
    if (!decision.violated && this.overBudget(rules, counters)) {
      return this.checkAfterSync(subject, state, rules, counters, true);
    }
    return this.admit(rules, counters, decision);
  }

  /** `check` when the shared counts must be read first (`loaded` false) or again. */
  private async checkAfterSync(
    subject: string,
    state: SubjectState,
    rules: LimitRule[],
    counters: WindowCounter[],
    loaded: boolean,
  ): Promise<LimitDecision> {
    if (!loaded) await this.syncSubject(subject, state, false);
    let decision = this.decide(rules, counters);
    if (!decision.violated && this.overBudget(rules, counters)) {
      await this.syncSubject(subject, state, true);
      decision = this.decide(rules, counters);
    }
    return this.admit(rules, counters, decision);
  }

  private admit(
    rules: LimitRule[],
    counters: WindowCounter[],
    { violated, retryAfterSeconds, at }: ReturnType<RateLimiter['decide']>,
  ): LimitDecision {
    if (!violated) for (const counter of counters) counter.local += 1;
    return {
      allowed: !violated,
      violated,
      retryAfterSeconds,
      headers: rateLimitHeaders(rules, counters, at),
    };
  }

  private decide(rules: LimitRule[], counters: WindowCounter[]) {
    const at = this.now();
    let violated: LimitRule | undefined;
    let retryAfterSeconds = 0;
    for (let i = 0; i < rules.length; i += 1) {
      const rule = rules[i];
      const counter = counters[i];
      if (counter.local + counter.remote >= rule.limit) {
        const wait = secondsUntil(counter.expiresAt, at);
        // The longest wait decides: a spent day quota is not cured by the next minute.
        if (!violated || wait > retryAfterSeconds) {
          violated = rule;
          retryAfterSeconds = wait;
        }
      }
    }
    return { violated, retryAfterSeconds, at };
  }

  /** True once this instance has admitted its share of what was left at its last sync. */
  private overBudget(rules: LimitRule[], counters: WindowCounter[]): boolean {
    for (let i = 0; i < rules.length; i += 1) {
      const counter = counters[i];
      const leftAtSync = rules[i].limit - counter.localAtSync - counter.remote;
      if (counter.local - counter.localAtSync >= Math.floor(leftAtSync * BUDGET_SHARE)) {
        return true;
      }
    }
    return false;
  }

  /** Publishes every changed shard and reads back the others' counts, in two round trips. */
  async syncAll(): Promise<void> {
    const nowMs = this.now();
    const active: string[] = [];
    const windowIds = new Set<string>();
    const dirty: RateCounterShard[] = [];
    for (const [subject, state] of this.subjects) {
      for (const [windowId, counter] of state.windows) {
        if (counter.expiresAt <= nowMs) {
          state.windows.delete(windowId);
          continue;
        }
        windowIds.add(windowId);
        // A shard only grows, and a subject in the middle of its own sync is left to it, so
        // two writes of one shard never race and a published reservation is never undone.
        if (!state.syncing && counter.local > counter.written) {
          dirty.push(this.shardOf(subject, windowId, counter));
        }
      }
      if (state.windows.size === 0 && nowMs - state.lastSeenAt > 60_000)
        this.subjects.delete(subject);
      else active.push(subject);
    }
    await this.publish(dirty);
    for (const shard of dirty) {
      const counter = this.subjects.get(shard.subject)?.windows.get(shard.window);
      if (counter) counter.written = Math.max(counter.written, shard.count);
    }
    if (active.length > 0) {
      const shards = await this.options.repo.readShards(active, [...windowIds]);
      this.applyRemote(active, shards);
    }
    if (nowMs - this.lastPruneAt > 60_000) {
      this.lastPruneAt = nowMs;
      await this.options.repo.pruneExpired(nowMs);
    }
  }

  /** `reserve` publishes one more than admitted: the request about to be decided. */
  private async syncSubject(subject: string, state: SubjectState, reserve: boolean): Promise<void> {
    if (!state.syncing) {
      state.syncing = (async () => {
        try {
          // The counters are held from here: the periodic sync may drop a window that
          // expires while this write is in flight (seen at a minute boundary under load).
          const changed = [...state.windows]
            .map(([windowId, counter]) => ({
              counter,
              shard: this.shardOf(subject, windowId, counter, reserve ? 1 : 0),
            }))
            .filter(({ counter, shard }) => shard.count > counter.written);
          await this.publish(changed.map(({ shard }) => shard));
          for (const { counter, shard } of changed) {
            counter.written = Math.max(counter.written, shard.count);
          }
          const read = await this.options.repo.readShards([subject], [...state.windows.keys()]);
          this.applyRemote([subject], read);
        } finally {
          state.syncing = undefined;
        }
      })();
    }
    await state.syncing;
  }

  /**
   * Writes shards after every earlier write of this instance has landed. Counts are taken
   * when a write is queued, so queue order is count order, and a slow write of an older
   * count can never land over a newer one (which would let a second instance admit past the
   * limit).
   */
  private publish(shards: RateCounterShard[]): Promise<void> {
    if (shards.length === 0) return Promise.resolve();
    const write = this.writes.then(() => this.options.repo.writeShards(shards));
    this.writes = write.catch(() => undefined);
    return write;
  }

  private applyRemote(subjects: string[], shards: RateCounterShard[]): void {
    const sums = new Map<string, number>();
    for (const shard of shards) {
      if (shard.instance === this.options.instanceId) continue;
      const id = `${shard.subject}|${shard.window}`;
      sums.set(id, (sums.get(id) ?? 0) + shard.count);
    }
    for (const subject of subjects) {
      const state = this.subjects.get(subject);
      if (!state) continue;
      for (const [windowId, counter] of state.windows) {
        counter.remote = sums.get(`${subject}|${windowId}`) ?? 0;
        // Requests admitted while the sync was in flight are not published yet: they stay
        // counted against the next budget instead of being taken as seen by the others.
        counter.localAtSync = Math.min(counter.local, counter.written);
        counter.loaded = true;
      }
    }
  }

  private stateOf(subject: string, nowMs: number): SubjectState {
    let state = this.subjects.get(subject);
    if (!state) {
      state = { windows: new Map(), syncing: undefined, lastSeenAt: nowMs };
      this.subjects.set(subject, state);
    }
    state.lastSeenAt = nowMs;
    return state;
  }

  private counterFor(state: SubjectState, rule: LimitRule, nowMs: number): WindowCounter {
    const { id, expiresAt } = windowOf(rule.name, nowMs);
    let counter = state.windows.get(id);
    if (!counter) {
      counter = { local: 0, remote: 0, written: 0, localAtSync: 0, expiresAt, loaded: false };
      state.windows.set(id, counter);
    }
    return counter;
  }

  private shardOf(
    subject: string,
    windowId: string,
    counter: WindowCounter,
    reserved = 0,
  ): RateCounterShard {
    const instance = this.options.instanceId;
    return {
      _id: `${subject}|${windowId}|${instance}`,
      subject,
      window: windowId,
      instance,
      count: counter.local + reserved,
      expires_at: counter.expiresAt,
    };
  }
}

/** Share of what is left that an instance may admit between two syncs. */
const BUDGET_SHARE = 0.25;

interface Window {
  id: string;
  /** When it began (a day window: UTC midnight) and when it ends. */
  startsAt: number;
  expiresAt: number;
}

/** The window of each kind last asked for: every request of a window asks for the same. */
const lastWindows = new Map<LimitRule['name'], Window>();

function windowOf(name: LimitRule['name'], nowMs: number): Window {
  const last = lastWindows.get(name);
  if (last && last.startsAt <= nowMs && nowMs < last.expiresAt) return last;
  let window: Window;
  if (name === 'day') {
    const expiresAt = nowMs + msUntilUtcMidnight(nowMs);
    window = { id: `d:${utcDay(nowMs)}`, startsAt: expiresAt - 86_400_000, expiresAt };
  } else {
    const size = WINDOW_SECONDS[name] * 1000;
    const index = Math.floor(nowMs / size);
    window = { id: `${name[0]}:${index}`, startsAt: index * size, expiresAt: (index + 1) * size };
  }
  lastWindows.set(name, window);
  return window;
}

const secondsUntil = (atMs: number, nowMs: number): number =>
  Math.max(1, Math.ceil((atMs - nowMs) / 1000));

/** `RateLimit-Policy` of each rule list seen (a key's rules are one list while it is cached). */
const policies = new WeakMap<LimitRule[], string>();

function policyOf(rules: LimitRule[]): string {
  let policy = policies.get(rules);
  if (policy === undefined) {
    policy = rules
      .map((rule) => `"${rule.name}";q=${rule.limit};w=${WINDOW_SECONDS[rule.name]}`)
      .join(', ');
    policies.set(rules, policy);
  }
  return policy;
}

function rateLimitHeaders(
  rules: LimitRule[],
  counters: WindowCounter[],
  nowMs: number,
): Record<string, string> {
  let closest = 0;
  let closestLeft = Infinity;
  for (let i = 0; i < rules.length; i += 1) {
    const left = Math.max(0, rules[i].limit - counters[i].local - counters[i].remote);
    if (left < closestLeft) {
      closest = i;
      closestLeft = left;
    }
  }
  return {
    'RateLimit-Limit': String(rules[closest].limit),
    'RateLimit-Remaining': String(closestLeft),
    'RateLimit-Reset': String(secondsUntil(counters[closest].expiresAt, nowMs)),
    'RateLimit-Policy': policyOf(rules),
  };
}
