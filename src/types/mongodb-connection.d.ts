/**
 * The driver's connection class (internal to the `mongodb` package, which ships no type for
 * it): only what `store/command-counter.ts` relies on. The driver's own `connectionType`
 * client option takes a subclass of it.
 */
declare module 'mongodb/lib/cmap/connection' {
  export class Connection {
    /** `'<monitor>'` on the heartbeat connections, a number on pooled ones. */
    readonly id: number | '<monitor>';
    /** Set once the connection's handshake is done. */
    readonly established: boolean;
    /** `host:port` of the server this connection talks to. */
    readonly address: string;
    command(ns: unknown, command: Record<string, unknown>, ...rest: unknown[]): Promise<unknown>;
  }
}
