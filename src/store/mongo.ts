import {
  MongoClient,
  MongoServerError,
  type Collection,
  type Db,
  type Document,
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

/** Pings the server; resolves to an error message or undefined when reachable. */
export async function pingMongo(db: Db): Promise<string | undefined> {
  try {
    await db.command({ ping: 1 }, { timeoutMS: 2000 });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
