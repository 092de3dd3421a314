import { MongoClient } from 'mongodb';
import { createNotificationActivities } from '../../src/activities/notifications.activities';
import { createRepos } from '../../src/store';
import type { Notification } from '../../src/store/notifications.repo';
import { testSealedRecords } from '../helpers/sealed-records';
import { freshDbName } from '../helpers/test-app';
import { testMongoUri } from '../test-env';

// A notification's delivery workflow can run twice (its event recorded again, its workflow
// id free once the first run completed): the second run finds it no longer pending and must
// not take a delivery back by settling it `skipped`.
const client = new MongoClient(testMongoUri());
const db = client.db(freshDbName('notification_settle'));
const repos = createRepos(db, testSealedRecords());
const activities = createNotificationActivities({
  repos,
  webhookSigningSecret: 'secret',
  webhookTimeoutMs: 1000,
  startDelivery: async () => undefined,
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

const notification = (id: string, status: Notification['status']): Notification => ({
  _id: id,
  subscription_id: 'sub_1',
  event: 'action.aborted',
  event_id: `act_1:${id}`,
  subject: { type: 'action', id: 'act_1' },
  data: {},
  deliver_at: '2026-12-08T00:00:00.000Z',
  status,
  attempts: [],
  at: '2026-12-08T00:00:00.000Z',
  updated_at: '2026-12-08T00:00:00.000Z',
});

describe('settleNotification', () => {
  it('leaves a delivered notification delivered', async () => {
    await repos.notifications.insertOnce(notification('ntf_delivered', 'delivered'));
    expect(await activities.notificationStillDue('ntf_delivered')).toBe(false);
    await activities.settleNotification('ntf_delivered', 'skipped');
    expect((await repos.notifications.findById('ntf_delivered'))?.status).toBe('delivered');
  });

  it('settles a pending one', async () => {
    await repos.notifications.insertOnce(notification('ntf_pending', 'pending'));
    await activities.settleNotification('ntf_pending', 'failed');
    expect((await repos.notifications.findById('ntf_pending'))?.status).toBe('failed');
  });
});
