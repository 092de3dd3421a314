import Koa from 'koa';
import { MongoClient } from 'mongodb';

/**
 * The benchmark baseline: a bare Koa server that reads the same runtime document as
 * `GET /v1/runtime/status`, with no middleware at all (no auth, limits, logging, ledger).
 */
async function main(): Promise<void> {
  const client = await MongoClient.connect(process.env['MONGODB_URI']!, { maxPoolSize: 50 });
  const runtime = client.db().collection<{ _id: string }>('runtime');
  // The inbox's own collection: what awaits approval, as the record activity keeps it.
  const actions = client.db().collection<{ _id: string; status: string }>('action_inbox');
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/actions') {
      // The same page the inbox reads: newest first, one status, limit + 1 rows.
      const rows = await actions
        .find({ status: String(ctx.query['status']) })
        .sort({ _id: -1 })
        .limit(51)
        .toArray();
      ctx.body = { ok: true, payload: { items: rows.slice(0, 50), next_cursor: null } };
      return;
    }
    const doc = await runtime.findOne({ _id: 'runtime' });
    ctx.body = { ok: true, payload: doc };
  });
  const server = app.listen(Number(process.env['PORT']), '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close();
    void client.close().then(() => process.exit(0));
  });
}

void main();
