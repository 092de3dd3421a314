import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { createApp } from './api/app';
import { createHttpServer } from './api/http-server';
import { buildDeps } from './app/build-deps';
import { API_VERSION } from './api/openapi';
import { ConfigError, loadConfig } from './config';
import { metricsListener } from './observability/metrics-listener';

/** Api process: serve until SIGINT/SIGTERM, then drain in-flight requests and close. */
async function main(): Promise<void> {
  const config = loadConfig();
  // Log lines are written in batches of 8 KiB (one write per ~30 request lines, which the
  // benchmark showed matters), and at least every second, and at exit.
  const logger = pino(
    { level: config.logLevel, base: { service: 'api' } },
    pino.destination({ sync: false, minLength: 8192 }),
  );
  setInterval(() => logger.flush(), 1000).unref();
  const deps = await buildDeps(config, logger);
  const app = createApp(deps);

  const server = createHttpServer(app);
  server.keepAliveTimeout = 5000;
  await listen(server, config.port, config.host);
  logger.info({ url: config.publicBaseUrl, instance: deps.instanceId }, 'api listening');
  await deps.serviceEvents.record({
    kind: 'api.started',
    level: 'info',
    message: `api ${deps.instanceId} listening on ${config.publicBaseUrl}`,
    detail: { version: API_VERSION, pid: process.pid, url: config.publicBaseUrl },
  });

  let metricsServer: Server | undefined;
  if (config.metricsListen) {
    const [host, port] = splitHostPort(config.metricsListen);
    metricsServer = createServer(metricsListener(deps.metrics.registry, logger));
    await listen(metricsServer, port, host);
    logger.info({ listen: config.metricsListen }, 'metrics listener up');
  }

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      metricsServer?.close();
      deps.serviceEvents
        .record({
          kind: 'api.stopped',
          level: 'info',
          message: `api ${deps.instanceId} stopped (${signal})`,
          detail: { signal, pid: process.pid },
        })
        .then(() => deps.close())
        .then(() => {
          logger.info('stopped');
          logger.flush(() => process.exit(0));
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'error while closing');
          process.exit(1);
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function splitHostPort(address: string): [string, number] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index), Number(address.slice(index + 1))];
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
