import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/**
 * The `METRICS_LISTEN` listener: Prometheus text on any request. A collector that fails is
 * a 500 and a log line, never an unhandled rejection that would take the api process down.
 */
export function metricsListener(registry: Registry, logger: Logger): RequestListener {
  return (_req, res) => {
    registry
      .metrics()
      .then((body) => {
        res.setHeader('Content-Type', registry.contentType);
        res.end(body);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'metrics collection failed');
        res.statusCode = 500;
        res.end('metrics collection failed\n');
      });
  };
}
