import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local webhook receiver that counts every delivery by its `Idempotency-Key`. */
export interface Receiver {
  url: string;
  /** Deliveries received per idempotency key (an action id). */
  deliveries: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the receiver on a free loopback port; it answers 200 to every POST. */
export async function startReceiver(): Promise<Receiver> {
  const deliveries = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const key = req.headers['idempotency-key'];
    req.resume();
    req.on('end', () => {
      if (typeof key === 'string') deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
