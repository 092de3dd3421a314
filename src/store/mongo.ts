import {
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type OptionalUnlessRequiredId,
  type WriteError,
} from 'mongodb';
import type { CommandHooks } from './command-counter';
import { mongoClientOptions, type CommandReporting } from './mongo-client-options';

export type { CommandReporting } from './mongo-client-options';

/** Opens a client; the driver reconnects by itself, so a brief outage heals without us. */
export async function connectMongo(
  uri: string,
  dbName: string,
  reporting: CommandReporting = {},
): Promise<{ client: MongoClient; db: Db }> {
  // Reported by the connection class when the driver has one to extend (command-counter.ts
  // says why not by the driver's command events); by those events otherwise.
  const { options, byEvents } = mongoClientOptions(uri, reporting);
  const client = new MongoClient(uri, options);
  if (byEvents) reportByEvents(client, reporting);
  await client.connect();
  return { client, db: client.db(dbName) };
}

/** The hooks fed by the driver's command events, when no connection class can be made. */
export function reportByEvents(client: MongoClient, hooks: CommandHooks): void {
  const open = new Map<number, (error?: unknown) => void>();
  client.on('commandStarted', (event) => {
    hooks.onCommand?.(event.commandName);
    const named: unknown = (event.command as Record<string, unknown>)[event.commandName];
    const settled = hooks.traceCommand?.({
      name: event.commandName,
      databaseName: event.databaseName,
      collection: typeof named === 'string' ? named : undefined,
      address: event.address,
    });
    if (settled) open.set(event.requestId, settled);
  });
  client.on('commandSucceeded', (event) => {
    open.get(event.requestId)?.();
    open.delete(event.requestId);
  });
  client.on('commandFailed', (event) => {
    open.get(event.requestId)?.(event.failure);
    open.delete(event.requestId);
  });
}

/** True for a unique-index violation (E11000). */
export const isDuplicateKey = (error: unknown): boolean =>
  error instanceof MongoServerError && error.code === 11000;

/** For `insertUnordered`: a document refused only because its key is stored already. */
export const isDuplicateRefusal = (refusal: WriteError): boolean => refusal.code === 11000;

/** Inserts `doc`; false when a document with its key is there already (a claim). */
export async function insertOnce<T extends Document>(col: Collection<T>, doc: T): Promise<boolean> {
  try {
    await col.insertOne(doc as OptionalUnlessRequiredId<T>);
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Inserts `docs` in one unordered insert, so a refused document (a duplicate key) refuses
 * only itself, and answers the refusals (`index` into `docs`). Any other failure, or a
 * refusal `accepted` turns down, throws the driver's error.
 */
export async function insertUnordered<T extends Document>(
  col: Collection<T>,
  docs: OptionalUnlessRequiredId<T>[],
  accepted: (refusal: WriteError) => boolean = () => true,
): Promise<WriteError[]> {
  try {
    await col.insertMany(docs, { ordered: false });
    return [];
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const refusals = ([] as WriteError[]).concat(error.writeErrors);
    if (!refusals.every(accepted)) throw error;
    return refusals;
  }
}

/**
 * Writes a projected record unless the store holds one at the same or a later `seq`: the
 * record's workflow writes them one after another, so this only stops a late retry of an
 * earlier one from going back. It reads first rather than filtering the replace on `seq`,
 * because FerretDB answers a filter on anything but `_id` with a collection scan.
 */
export async function replaceIfNewer<T extends { _id: string; seq: number }>(
  col: Collection<T>,
  record: T,
): Promise<void> {
  const filter = { _id: record._id } as Filter<T>;
  const stored = await col.findOne(filter, { projection: { seq: 1 } });
  if (stored && (stored as unknown as T).seq >= record.seq) return;
  await col.replaceOne(filter, record, { upsert: true });
}

/** Pings the server; resolves to an error message or undefined when reachable. */
export async function pingMongo(db: Db): Promise<string | undefined> {
  try {
    await db.command({ ping: 1 }, { timeoutMS: 2000 });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** What {@link guardMongoClient} watches for and does. */
export interface MongoGuardOptions {
  /** The client's URI: a fresh client opened on it tells "down" from "stuck". */
  uri: string;
  /** How long every ping may fail before the fresh client is asked. */
  boundMs: number;
  /** Ping period. */
  intervalMs?: number;
  /** Called once, when the client has failed for `boundMs` while a fresh client can ping. */
  onStuck: (failingForMs: number) => void;
}

/**
 * Watches a client that should heal by itself, for the one case where it did not (found by
 * the chaos run, docs/chaos.md): after FerretDB was killed and restarted, one process's
 * client failed every call with a server-selection error for minutes, holding no connection,
 * while every other process reconnected in seconds. The guard pings through `db` every
 * `intervalMs`; once pings have failed for `boundMs`, it pings through a fresh client, and
 * only if that one succeeds and a ping through `db` made after it still fails (the database
 * is back, this client is not) calls `onStuck`. A database that is simply down, or a client
 * that reconnects as the database comes back, never triggers it. Returns a function that
 * stops the guard.
 */
export function guardMongoClient(db: Db, options: MongoGuardOptions): () => void {
  const intervalMs = options.intervalMs ?? 5000;
  let failingSince: number | undefined;
  let busy = false;
  let stopped = false;
  const check = async (): Promise<void> => {
    const failed = await pingMongo(db);
    if (failed === undefined) {
      failingSince = undefined;
      return;
    }
    const since = (failingSince ??= Date.now());
    if (Date.now() - since < options.boundMs) return;
    if ((await probeMongo(options.uri)) || stopped) return;
    // The database answers a fresh client. Ask ours once more, now that it is back: the
    // probe waits for the database (server selection) while our failing ping may have
    // failed fast just before it came back (driver 7.1+ answers a refused connection at
    // once, without waiting), so only a client that still fails now is stuck.
    if ((await pingMongo(db)) === undefined) {
      failingSince = undefined;
      return;
    }
    if (stopped) return;
    stop();
    options.onStuck(Date.now() - since);
  };
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    void check().finally(() => {
      busy = false;
    });
  }, intervalMs);
  timer.unref();
  const stop = (): void => {
    stopped = true;
    clearInterval(timer);
  };
  return stop;
}

/** Pings through a fresh, short-lived client; an error message, or undefined when reachable. */
async function probeMongo(uri: string): Promise<string | undefined> {
  const probe = new MongoClient(uri, { serverSelectionTimeoutMS: 3000, connectTimeoutMS: 3000 });
  try {
    return await pingMongo(probe.db('admin'));
  } finally {
    await probe.close().catch(() => undefined);
  }
}
