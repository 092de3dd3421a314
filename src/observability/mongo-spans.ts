import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { CommandTracer } from '../store/command-counter';

/** Database attributes of the semantic conventions (still "development" there, so spelled here). */
const DB_SYSTEM = 'db.system';
const DB_NAMESPACE = 'db.namespace';
const DB_COLLECTION = 'db.collection.name';
const DB_OPERATION = 'db.operation.name';

/** The driver's own commands (liveness pings, session clean-up), never a request's work. */
const DRIVER_COMMANDS = new Set(['ping', 'endSessions']);

/**
 * A span per MongoDB command, fed by the client's connection class (`connectMongo`'s
 * `traceCommand`, src/store/command-counter.ts), not by the driver's command monitoring
 * (which builds and deserializes every reply a second time: docs/observability.md, "Cost"):
 * `find external_actions`, kind client, with `db.*` and `server.*` attributes and never the
 * command's document (it carries user data).
 *
 * Only a command issued inside a sampled trace gets a span: the api's background flushes
 * (request ledger, rate counters, service monitor) would otherwise each start a trace of their
 * own every few hundred milliseconds and drown the requests' traces.
 */
export function mongoCommandSpans(tracer: Tracer): CommandTracer {
  // Server addresses seen (a pool has a handful), parsed once each.
  const servers = new Map<string, [string, number | undefined]>();
  return (command) => {
    if (DRIVER_COMMANDS.has(command.name)) return undefined;
    // Outside a trace, or in one the sampler left out: no span (and no cost beyond this).
    const active = context.active();
    if (!trace.getSpan(active)?.isRecording()) return undefined;
    let server = servers.get(command.address);
    if (!server) servers.set(command.address, (server = hostAndPort(command.address)));
    const [host, port] = server;
    const attributes: Record<string, string | number> = {
      [DB_SYSTEM]: 'mongodb',
      [DB_NAMESPACE]: command.databaseName,
      [DB_OPERATION]: command.name,
      [ATTR_SERVER_ADDRESS]: host,
    };
    if (command.collection) attributes[DB_COLLECTION] = command.collection;
    if (port) attributes[ATTR_SERVER_PORT] = port;
    const span = tracer.startSpan(
      command.collection ? `${command.name} ${command.collection}` : command.name,
      { kind: SpanKind.CLIENT, attributes },
      active,
    );
    return (error) => {
      if (error !== undefined) {
        // The driver fails commands with its errors (MongoServerError, ...), always Errors.
        const failure = error instanceof Error ? error : undefined;
        span.setAttribute(ATTR_ERROR_TYPE, failure?.name ?? 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure?.message });
      }
      span.end();
    };
  };
}

function hostAndPort(address: string): [string, number | undefined] {
  const index = address.lastIndexOf(':');
  if (index < 0) return [address, undefined];
  const port = Number(address.slice(index + 1));
  return Number.isInteger(port) ? [address.slice(0, index), port] : [address, undefined];
}
