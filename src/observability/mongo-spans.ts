import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type {
  CommandFailedEvent,
  CommandStartedEvent,
  CommandSucceededEvent,
  MongoClient,
} from 'mongodb';

/** Database attributes of the semantic conventions (still "development" there, so spelled here). */
const DB_SYSTEM = 'db.system';
const DB_NAMESPACE = 'db.namespace';
const DB_COLLECTION = 'db.collection.name';
const DB_OPERATION = 'db.operation.name';

/** Handshake and heartbeat commands: the driver's own, never a request's work. */
const DRIVER_COMMANDS = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'saslStart',
  'saslContinue',
  'endSessions',
]);

/**
 * A span per MongoDB command, from the driver's command monitoring (the client must be made
 * with `monitorCommands: true`): `find external_actions`, kind client, with `db.*` and
 * `server.*` attributes and never the command's document (it carries user data).
 *
 * Only a command issued inside a sampled trace gets a span: the api's background flushes (request
 * ledger, rate counters, service monitor) would otherwise each start a trace of their own
 * every few hundred milliseconds and drown the requests' traces.
 */
export function traceMongoCommands(client: MongoClient, tracer: Tracer): void {
  // Commands in flight on this client, by the driver's request id (unique in the process).
  const open = new Map<number, Span>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (DRIVER_COMMANDS.has(event.commandName)) return;
    // Outside a trace, or in one the sampler left out: no span (and no cost beyond this).
    if (!trace.getSpan(context.active())?.isRecording()) return;
    const collection = collectionOf(event);
    const [host, port] = hostAndPort(event.address);
    const span = tracer.startSpan(
      collection ? `${event.commandName} ${collection}` : event.commandName,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [DB_SYSTEM]: 'mongodb',
          [DB_NAMESPACE]: event.databaseName,
          [DB_OPERATION]: event.commandName,
          ...(collection ? { [DB_COLLECTION]: collection } : {}),
          [ATTR_SERVER_ADDRESS]: host,
          ...(port ? { [ATTR_SERVER_PORT]: port } : {}),
        },
      },
    );
    open.set(event.requestId, span);
  });
  client.on('commandSucceeded', (event: CommandSucceededEvent) => {
    open.get(event.requestId)?.end();
    open.delete(event.requestId);
  });
  client.on('commandFailed', (event: CommandFailedEvent) => {
    const span = open.get(event.requestId);
    if (!span) return;
    open.delete(event.requestId);
    const error = event.failure;
    span.setAttribute(ATTR_ERROR_TYPE, error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end();
  });
}

/** The collection a command names as its first field's value (`{find: 'coll', ...}`). */
function collectionOf(event: CommandStartedEvent): string | undefined {
  const named: unknown = (event.command as Record<string, unknown>)[event.commandName];
  return typeof named === 'string' ? named : undefined;
}

function hostAndPort(address: string): [string, number | undefined] {
  const index = address.lastIndexOf(':');
  if (index < 0) return [address, undefined];
  const port = Number(address.slice(index + 1));
  return Number.isInteger(port) ? [address.slice(0, index), port] : [address, undefined];
}
