import * as driverConnection from 'mongodb/lib/cmap/connection';

/** A connection class the driver accepts as its `connectionType` client option. */
export type ConnectionType = typeof driverConnection.Connection;

/**
 * A connection class that reports every command it sends by name (the first key of the
 * command document, as the driver's own `commandStarted` events name it), or undefined
 * when this driver build has no such class to extend.
 *
 * Why not `monitorCommands`: with it the driver builds a `CommandSucceededEvent` for every
 * reply, which deserializes the whole reply a second time (a find's batch again as plain
 * objects), whether or not anyone listens. Measured on FerretDB: 25-50 µs of CPU per
 * `findOne` of a small document and 130-290 µs per reply of a 50-row page, on the api's
 * hot path and in the worker, for a counter (docs/performance.md). Handshakes and
 * heartbeats are not counted, as the driver's events never reached the client for them.
 */
export function countingConnectionType(
  onCommand: (name: string) => void,
  base: unknown = driverConnection.Connection,
): ConnectionType | undefined {
  if (!isConnectionClass(base)) return undefined;
  return class CountingConnection extends base {
    override command(
      ns: unknown,
      command: Record<string, unknown>,
      ...rest: unknown[]
    ): Promise<unknown> {
      if (this.established && this.id !== '<monitor>') {
        for (const name in command) {
          onCommand(name);
          break;
        }
      }
      return super.command(ns, command, ...rest);
    }
  };
}

function isConnectionClass(base: unknown): base is ConnectionType {
  return (
    typeof base === 'function' &&
    typeof (base as { prototype?: { command?: unknown } }).prototype?.command === 'function'
  );
}
