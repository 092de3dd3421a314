import {
  MongoClient,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type OptionalUnlessRequiredId,
} from 'mongodb';

/** Opens a client; the driver reconnects by itself, so a brief outage heals without us. */
export async function connectMongo(
  uri: string,
  dbName: string,
): Promise<{ client: MongoClient; db: Db }> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    maxPoolSize: 50,
    appName: 'governed-runtime',
    // Feeds the per-command metric (docs/governance.md: the hot path's database cost).
    monitorCommands: true,
  });
  await client.connect();
  return { client, db: client.db(dbName) };
}

/** True for a unique-index violation (E11000). */
export const isDuplicateKey = (error: unknown): boolean =>
  error instanceof MongoServerError && error.code === 11000;

/**
 * True when the database could not be reached (refused, reset, timed out, no server to
 * select): the request may succeed once it is back, so callers answer 503, not 500.
 */
export const isDatabaseUnreachable = (error: unknown): boolean =>
  error instanceof MongoNetworkError ||
  error instanceof MongoServerSelectionError ||
  error instanceof MongoNotConnectedError ||
  error instanceof MongoTopologyClosedError;

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
