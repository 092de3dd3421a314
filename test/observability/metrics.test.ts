import { createMetrics } from '../../src/observability/metrics';

const lineOf = (text: string, prefix: string) =>
  text.split('\n').find((line) => line.startsWith(prefix));

describe('createMetrics', () => {
  it('publishes the requests counter from the latency histogram, by family and status', async () => {
    const metrics = createMetrics();
    metrics.latency.observe({ family: 'runtime_basic', status: 200 }, 0.002);
    metrics.latency.observe({ family: 'runtime_basic', status: 200 }, 0.004);
    metrics.latency.observe({ family: 'worlds_basic', status: 404 }, 0.001);

    let text = await metrics.registry.metrics();
    expect(lineOf(text, 'gr_http_requests_total{family="runtime_basic",status="200"}')).toMatch(
      / 2$/,
    );
    expect(lineOf(text, 'gr_http_requests_total{family="worlds_basic",status="404"}')).toMatch(
      / 1$/,
    );

    // A later scrape counts on from the histogram's totals, never twice.
    metrics.latency.observe({ family: 'worlds_basic', status: 404 }, 0.001);
    text = await metrics.registry.metrics();
    expect(lineOf(text, 'gr_http_requests_total{family="runtime_basic",status="200"}')).toMatch(
      / 2$/,
    );
    expect(lineOf(text, 'gr_http_requests_total{family="worlds_basic",status="404"}')).toMatch(
      / 2$/,
    );
  });

  it('publishes the MongoDB commands counted between scrapes as running totals', async () => {
    const metrics = createMetrics();
    metrics.countMongoCommand('find');
    metrics.countMongoCommand('find');
    metrics.countMongoCommand('insert');
    const first = await metrics.mongoCommands.get();
    expect(first.values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ labels: { command: 'find' }, value: 2 }),
        expect.objectContaining({ labels: { command: 'insert' }, value: 1 }),
      ]),
    );

    metrics.countMongoCommand('find');
    const text = await metrics.registry.metrics();
    expect(lineOf(text, 'gr_mongodb_commands_total{command="find"}')).toMatch(/ 3$/);
    expect(lineOf(text, 'gr_mongodb_commands_total{command="insert"}')).toMatch(/ 1$/);
  });
});
