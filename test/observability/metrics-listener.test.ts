import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Gauge, Registry } from 'prom-client';
import { metricsListener } from '../../src/observability/metrics-listener';

// Issue 10, risk 8: the metrics listener of the api process let a failed collection become
// an unhandled rejection (which ends a Node 20 process) and never answered.
describe('the METRICS_LISTEN listener', () => {
  it('answers 500 when a collector fails, and keeps serving', async () => {
    const registry = new Registry();
    let fail = true;
    new Gauge({
      name: 'test_flaky',
      help: 'fails on demand',
      registers: [registry],
      collect() {
        if (fail) throw new Error('collector broke');
        this.set(1);
      },
    });
    const server = createServer(metricsListener(registry, pino({ level: 'silent' })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    try {
      const broken = await fetch(url, { signal: AbortSignal.timeout(5000) });
      expect(broken.status).toBe(500);
      fail = false;
      const healed = await fetch(url);
      expect(healed.status).toBe(200);
      expect(await healed.text()).toContain('test_flaky 1');
    } finally {
      server.close();
    }
  });
});
