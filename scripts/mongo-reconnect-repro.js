#!/usr/bin/env node
// Repro harness for the chaos finding "a worker whose MongoDB client did not come back"
// (docs/chaos.md): opens CLIENTS driver clients with connectMongo's options, runs LOOPS
// insert/find loops on each, and SIGKILLs/restarts its own FerretDB again and again (some
// restarts quick, some killed again during start-up). A client that has not completed an
// operation for STUCK_S seconds while a fresh client can ping is reported with its SDAM
// monitor's internals. Exits 1 if any client got stuck.
//
//   node scripts/mongo-reconnect-repro.js
//   env: FERRETDB_BIN, PORT (27030), CLIENTS (8), LOOPS (5), ROUNDS (20), STUCK_S (30),
//        HEARTBEAT_MS (driver default), MODE (driver default), BLOCK_MS (0: event-loop
//        stalls of up to that many ms, like a busy worker), DATA (.data/mongo-repro)
'use strict';
const { spawn } = require('node:child_process');
const { mkdirSync, openSync } = require('node:fs');
const { join } = require('node:path');
const { setInterval, clearInterval } = require('node:timers');
const { setTimeout: sleep } = require('node:timers/promises');
const { MongoClient } = require('mongodb');

const root = join(__dirname, '..');

// Which phase of a monitor's connect (socket, handshake) has not settled: the driver calls
// these through the module's exports, so wrapping them here sees every monitor check.
const pending = new Set();
const connect = require('mongodb/lib/cmap/connect');
for (const name of ['makeSocket', 'performInitialHandshake']) {
  const original = connect[name];
  connect[name] = function (...args) {
    const options = name === 'makeSocket' ? args[0] : args[1];
    if (options.id !== '<monitor>') return original.apply(this, args);
    const entry = { name, at: Date.now(), conn: name === 'makeSocket' ? null : args[0] };
    pending.add(entry);
    const p = original.apply(this, args);
    p.then(
      (socket) => {
        pending.delete(entry);
        return socket;
      },
      () => pending.delete(entry),
    );
    return p;
  };
}
function pendingMonitorCalls() {
  const now = Date.now();
  return [...pending]
    .filter((e) => now - e.at > 10000)
    .map((e) => ({
      phase: e.name,
      ageS: Math.round((now - e.at) / 1000),
      conn: e.conn && {
        closed: e.conn.closed,
        error: e.conn.error && e.conn.error.message,
        dataEvents: !!e.conn.dataEvents,
        socketDestroyed: e.conn.socket.destroyed,
        socketTimeout: e.conn.socket.timeout,
      },
    }));
}
const env = process.env;
const BIN = env.FERRETDB_BIN || join(root, '.tools/bin/ferretdb');
const PORT = Number(env.PORT || 27030);
const CLIENTS = Number(env.CLIENTS || 8);
const LOOPS = Number(env.LOOPS || 5);
const ROUNDS = Number(env.ROUNDS || 20);
const STUCK_MS = Number(env.STUCK_S || 30) * 1000;
const BLOCK_MS = Number(env.BLOCK_MS || 0);
const DATA = env.DATA || join(root, '.data/mongo-repro');
const URI = `mongodb://127.0.0.1:${PORT}/`;
const t0 = Date.now();
const log = (...args) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...args);

let ferret = null;
function startFerret() {
  mkdirSync(DATA, { recursive: true });
  const out = openSync(join(DATA, 'ferretdb.log'), 'a');
  ferret = spawn(
    BIN,
    ['--listen', `127.0.0.1:${PORT}`, '--data', join(DATA, 'fdb'), '--log-level', 'warn'],
    { stdio: ['ignore', out, out] },
  );
  return ferret;
}
function killFerret() {
  if (ferret && ferret.exitCode === null) ferret.kill('SIGKILL');
  ferret = null;
}

function options() {
  const o = {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    maxPoolSize: 50,
    appName: 'mongo-reconnect-repro',
    monitorCommands: true,
  };
  if (env.HEARTBEAT_MS) o.heartbeatFrequencyMS = Number(env.HEARTBEAT_MS);
  if (env.MODE) o.serverMonitoringMode = env.MODE;
  return o;
}

/** The SDAM monitor's internals (what a stuck client needs explained). */
function monitorState(client) {
  const servers = client.topology ? [...client.topology.s.servers.values()] : [];
  return servers.map((s) => ({
    type: s.description.type,
    error: s.description.error && s.description.error.message,
    monitorState: s.monitor && s.monitor.s.state,
    interval: s.monitor && s.monitor.monitorId && s.monitor.monitorId.toJSON(),
    monitorConnection: s.monitor && s.monitor.connection ? !s.monitor.connection.closed : null,
    pool: { total: s.pool.totalConnectionCount, state: s.pool.s && s.pool.s.poolState },
  }));
}

class Probe {
  constructor(id) {
    this.id = id;
    this.lastOk = Date.now();
    this.lastErr = '';
    this.heartbeats = [];
    this.stuck = false;
    this.stopped = false;
    this.token = `${id}-${Date.now()}-${Math.random()}`;
  }
  async open() {
    this.client = new MongoClient(URI, options());
    for (const e of ['serverHeartbeatStarted', 'serverHeartbeatSucceeded', 'serverHeartbeatFailed'])
      this.client.on(e, (ev) => {
        this.heartbeats.push(
          `${((Date.now() - t0) / 1000).toFixed(1)} ${e.slice(15)}${ev.failure ? ' ' + ev.failure.message : ''}`,
        );
        if (this.heartbeats.length > 12) this.heartbeats.shift();
      });
    await this.client.connect();
    this.col = this.client.db('repro').collection('c' + this.id);
    this.lastOk = Date.now();
    this.loops = Array.from({ length: LOOPS }, (_, i) => this.loop(i));
  }
  async loop(i) {
    let n = 0;
    while (!this.stopped) {
      try {
        const _id = `${this.token}-${i}-${n++}`;
        await this.col.insertOne({ _id, at: new Date() });
        await this.col.findOne({ _id });
        this.lastOk = Date.now();
      } catch (error) {
        this.lastErr = `${error.name}: ${error.message}`;
        await sleep(100);
      }
      await sleep(20);
    }
  }
  async close() {
    this.stopped = true;
    await this.client.close(true).catch(() => {});
    await Promise.allSettled(this.loops ?? []);
  }
}

async function freshPing() {
  const c = new MongoClient(URI, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 });
  try {
    await c.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await c.close(true).catch(() => {});
  }
}

async function main() {
  startFerret();
  await sleep(1500);
  const probes = [];
  for (let i = 0; i < CLIENTS; i++) {
    const p = new Probe(i);
    await p.open();
    probes.push(p);
  }
  log(`${CLIENTS} clients x ${LOOPS} loops on ${URI}; options`, options());
  let stuckCount = 0;
  const checker = setInterval(() => {
    void (async () => {
      const now = Date.now();
      const late = probes.filter((p) => !p.stuck && now - p.lastOk > STUCK_MS);
      if (!late.length || !ferret || !(await freshPing())) return;
      for (const p of late) {
        p.stuck = true;
        stuckCount++;
        log(`STUCK client ${p.id}: no success for ${((now - p.lastOk) / 1000).toFixed(0)} s`, {
          lastErr: p.lastErr,
          monitor: monitorState(p.client),
          heartbeats: p.heartbeats,
          pendingMonitorCalls: pendingMonitorCalls(),
        });
      }
    })();
  }, 1000);
  let blocker = null;
  if (BLOCK_MS)
    blocker = setInterval(() => {
      const until = Date.now() + Math.random() * BLOCK_MS;
      while (Date.now() < until);
    }, 200);

  for (let round = 0; round < ROUNDS; round++) {
    await sleep(1000 + Math.random() * 6000);
    const pattern = round % 4;
    killFerret();
    if (pattern === 0) {
      // quick restart
      startFerret();
    } else if (pattern === 1) {
      // down for a while
      await sleep(Math.random() * 3000);
      startFerret();
    } else if (pattern === 2) {
      // killed again during start-up
      await sleep(Math.random() * 500);
      startFerret();
      await sleep(Math.random() * 300);
      killFerret();
      await sleep(Math.random() * 500);
      startFerret();
    } else {
      // a client restarted shortly before the kill (the worker's case)
      const p = probes[Math.floor(Math.random() * probes.length)];
      startFerret();
      await p.close();
      const q = new Probe(p.id);
      // A client that cannot open (FerretDB down) is retried, as a restarting worker would.
      for (;;) {
        try {
          await q.open();
          break;
        } catch (error) {
          await q.client.close().catch(() => {});
          log('reopen failed, retrying', error.message);
          await sleep(500);
        }
      }
      probes[probes.indexOf(p)] = q;
      await sleep(Math.random() * 2000);
      killFerret();
      await sleep(Math.random() * 200);
      startFerret();
    }
    log(
      `round ${round} (pattern ${pattern}) done; stuck so far ${stuckCount}; stale: ` +
        probes.map((p) => ((Date.now() - p.lastOk) / 1000).toFixed(0)).join(','),
    );
  }
  // Let every client recover, then one last check.
  await sleep(STUCK_MS + 5000);
  clearInterval(checker);
  if (blocker) clearInterval(blocker);
  const stillStale = probes.filter((p) => Date.now() - p.lastOk > 5000);
  for (const p of stillStale)
    log(`STALE at end: client ${p.id}`, {
      lastErr: p.lastErr,
      monitor: monitorState(p.client),
      heartbeats: p.heartbeats,
    });
  for (const p of probes) await p.close();
  killFerret();
  log(stuckCount || stillStale.length ? 'RESULT: stuck clients seen' : 'RESULT: all recovered');
  process.exit(stuckCount || stillStale.length ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  killFerret();
  process.exit(2);
});
