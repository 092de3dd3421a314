import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A webhook receiver on loopback that behaves like a careful one: it answers 500 for the
 * first `failFirst` calls, and applies each Idempotency-Key at most once.
 */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  /** Idempotency keys applied, in order. */
  readonly applied: string[] = [];
  failFirst = 0;
  /** Requests that have arrived, answered or not. */
  arrivals = 0;
  /** Delay before answering, to hold a request in flight. */
  delayMs = 0;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.arrivals += 1;
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        setTimeout(() => {
          const fail = this.calls.length < this.failFirst;
          const status = fail ? 500 : 200;
          this.calls.push({ headers: req.headers, body, status });
          const key = String(req.headers['idempotency-key']);
          if (!fail && !this.applied.includes(key)) this.applied.push(key);
          res.writeHead(status, { 'Content-Type': 'application/json' }).end('{}');
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** True when the call's signature is the HMAC of its body under `secret`. */
  static signedWith(call: ReceivedCall, secret: string): boolean {
    const expected = createHmac('sha256', secret).update(call.body).digest('hex');
    return call.headers['x-governed-signature'] === `sha256=${expected}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
