import { MongoClient, type MongoClientOptions } from 'mongodb';
import { hookedConnectionType, type CommandHooks, type ConnectionType } from './command-counter';

/** How a client reports the commands it sends. */
export interface CommandReporting extends CommandHooks {
  /** The driver's command events (`commandStarted`, ...), for tests that inspect commands. */
  monitorCommands?: boolean;
}

/** The options of our clients: the driver's, and the internal connection class it accepts. */
export type MongoOptions = MongoClientOptions & { connectionType?: ConnectionType };

/**
 * Our defaults: a request fails over to 503 within seconds rather than the driver's 30 s
 * (docs/chaos.md), and a pool per process sized for the api's concurrency. Only where the URI
 * says nothing: the driver lets an option passed in code override the same option in the
 * URI, so passing these unconditionally would silently undo an operator's
 * `?maxPoolSize=200` or `?serverSelectionTimeoutMS=30000` in `MONGODB_URI`.
 */
const DEFAULTS = {
  serverSelectionTimeoutMS: 5000,
  connectTimeoutMS: 5000,
  maxPoolSize: 50,
  appName: 'governed-runtime',
} as const satisfies MongoClientOptions;

/**
 * The options `connectMongo` opens a client with on `uri`, and whether commands are to be
 * counted and traced through the driver's command events (`byEvents`: when this driver build
 * has no connection class to extend, command-counter.ts).
 *
 * Topology (replica set, SRV, TLS, read preference, write concern, retries, credentials) is
 * the URI's alone: nothing here sets or overrides it.
 */
export function mongoClientOptions(
  uri: string,
  reporting: CommandReporting = {},
): { options: MongoOptions; byEvents: boolean } {
  const { onCommand, traceCommand } = reporting;
  const hooked = onCommand !== undefined || traceCommand !== undefined;
  const connectionType = hooked ? hookedConnectionType({ onCommand, traceCommand }) : undefined;
  const byEvents = hooked && connectionType === undefined;
  const inUri = uriOptionNames(uri);
  const defaults = Object.fromEntries(
    Object.entries(DEFAULTS).filter(([name]) => !inUri.has(name.toLowerCase())),
  );
  const options: MongoOptions = {
    ...defaults,
    monitorCommands: reporting.monitorCommands === true || byEvents,
    ...(connectionType ? { connectionType } : {}),
  };
  return { options, byEvents };
}

/** The option names a MongoDB URI's query sets, lower-cased (the driver reads them so). */
export function uriOptionNames(uri: string): Set<string> {
  const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '';
  return new Set([...new URLSearchParams(query).keys()].map((name) => name.toLowerCase()));
}

/** Options every driver since 4 ignored; driver 7 refuses a URI that carries them. */
const REMOVED_OPTIONS = new Set(['usenewurlparser', 'useunifiedtopology']);

/**
 * Why the driver would refuse `uri` (an unknown or removed option, a malformed host list,
 * `mongodb+srv` with a port, ...), or undefined when it parses. Parsing opens nothing and
 * resolves no name, so configuration can check the URI before the process starts anything.
 */
export function mongoUriProblem(uri: string): string | undefined {
  try {
    new MongoClient(uri);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const removed = [...uriOptionNames(uri)].filter((name) => REMOVED_OPTIONS.has(name));
    return removed.length > 0
      ? `${message} (useNewUrlParser and useUnifiedTopology have had no effect since driver 4 and driver 7 refuses them: remove them)`
      : message;
  }
}
