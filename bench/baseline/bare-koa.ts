import Koa from 'koa';
import { MongoClient } from 'mongodb';

/**
 * The benchmark baseline: a bare Koa server that reads the same runtime document as
 * `GET /v1/runtime/status`, with no middleware at all (no auth, limits, logging, ledger).
 */
async function main(): Promise<void> {
  const client = await MongoClient.connect(process.env['MONGODB_URI']!, { maxPoolSize: 50 });
  const db = client.db();
  const runtime = db.collection<{ _id: string }>('runtime');
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
    if (ctx.path === '/context-commitments') {
      // What a context's commitments read: its approved or executing actions and open tasks.
      const context = String(ctx.query['context']);
      const [committed, tasks] = await Promise.all([
        db
          .collection('external_actions')
          .find({ shared_context_id: context, status: { $in: ['approved', 'executing'] } })
          .toArray(),
        db
          .collection('world_tasks')
          .find({ shared_context_id: context, state: { $in: ['open', 'in_progress'] } })
          .toArray(),
      ]);
      ctx.body = { ok: true, payload: { actions: committed, tasks } };
      return;
    }
    if (ctx.path === '/self-report-reads') {
      // The reads a self-report makes: the window's ledger, commitments, counts.
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const [ledger, committed, tasks, byStatus, events] = await Promise.all([
        db
          .collection('action_ledger')
          .find({ at: { $gte: from } })
          .toArray(),
        db
          .collection('external_actions')
          .find({ status: { $in: ['approved', 'executing'] } })
          .toArray(),
        db
          .collection('world_tasks')
          .find({ state: { $in: ['open', 'in_progress'] } })
          .toArray(),
        db
          .collection('external_actions')
          .aggregate([{ $group: { _id: '$status', n: { $sum: 1 } } }])
          .toArray(),
        db.collection('external_events').countDocuments(),
      ]);
      ctx.body = { ok: true, payload: { ledger, committed, tasks, byStatus, events } };
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
