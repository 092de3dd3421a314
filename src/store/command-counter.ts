import * as driverConnection from 'mongodb/lib/cmap/connection';

/** A connection class the driver accepts as its `connectionType` client option. */
export type ConnectionType = typeof driverConnection.Connection;

/** One command as a connection sends it: what a command span is named and described by. */
export interface SentCommand {
  /** The command's name, the first key of its document (`find`, `update`, ...). */
  name: string;
  databaseName: string;
  /** The collection the command names as its first field's value, if any. */
  collection: string | undefined;
  /** `host:port` of the server the connection talks to. */
  address: string;
}

/**
 * Called as a command is sent; answers what to call once it has settled (with the error when
 * it failed), or undefined when the command is of no interest (outside a trace).
 */
export type CommandTracer = (command: SentCommand) => ((error?: unknown) => void) | undefined;

/** What a client's connections report about the commands they send. */
export interface CommandHooks {
  /** Called with each command's name (the per-command metric). */
  onCommand?: (name: string) => void;
  /** Command spans when traces are on (`src/observability/mongo-spans.ts`). */
  traceCommand?: CommandTracer;
}

/**
 * A connection class that reports every command it sends (by name, as the driver's own
 * `commandStarted` events name it, and to the command tracer), or undefined when this driver
 * build has no such class to extend.
 *
 * Why not `monitorCommands`: with it the driver builds a `CommandSucceededEvent` for every
 * reply, which deserializes the whole reply a second time (a find's batch again as plain
 * objects), whether or not anyone listens: a cost per command that grows with the reply, on
 * the api's hot path and in the worker, for a counter (docs/performance.md), and again for a command
 * span (docs/observability.md, "Cost"). Handshakes and heartbeats are not reported, as the
 * driver's events never reached the client for them.
 */
export function hookedConnectionType(
  hooks: CommandHooks,
  base: unknown = driverConnection.Connection,
): ConnectionType | undefined {
  if (!isConnectionClass(base)) return undefined;
  const { onCommand, traceCommand } = hooks;
  return class HookedConnection extends base {
    override command(
      ns: { db?: unknown } | undefined,
      command: Record<string, unknown>,
      ...rest: unknown[]
    ): Promise<unknown> {
      if (!this.established || this.id === '<monitor>') return super.command(ns, command, ...rest);
      let name = '';
      for (const key in command) {
        name = key;
        break;
      }
      onCommand?.(name);
      const settled = traceCommand?.({
        name,
        databaseName: typeof ns?.db === 'string' ? ns.db : '',
        collection: typeof command[name] === 'string' ? (command[name] as string) : undefined,
        address: this.address,
      });
      const sent = super.command(ns, command, ...rest);
      if (!settled) return sent;
      return sent.then(
        (reply) => {
          settled();
          return reply;
        },
        (error: unknown) => {
          settled(error);
          throw error;
        },
      );
    }
  };
}

function isConnectionClass(base: unknown): base is ConnectionType {
  return (
    typeof base === 'function' &&
    typeof (base as { prototype?: { command?: unknown } }).prototype?.command === 'function'
  );
}
