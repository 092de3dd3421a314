import type { AuthContext } from '../../../src/auth/auth-context';
import {
  createOrganization,
  setOrganizationStatus,
} from '../../../src/domain/governance/organizations.service';
import { Conflict } from '../../../src/lib/errors';
import { startTestApp, type TestApp } from '../../helpers/test-app';

// Issue 10, risk 8: a status change was find-then-write with no guard, so two changes based
// on the same read both went ahead, each reporting (and auditing) a `before` that one of
// them had already overwritten.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp('status_change');
});
afterAll(() => app.close());

const operator = {
  keyId: 'aaaaaaaaaaaa',
  principalId: 'prn_00000000000000000000000000',
  organizationId: 'org_00000000000000000000000000',
  role: 'operator',
} as AuthContext;

it('lets one of two changes based on the same read go ahead, and refuses the other', async () => {
  const created = (await createOrganization(app.deps, operator, 'req_create', {
    name: 'Racing Org',
  })) as { organization_id: string };
  const id = created.organization_id;
  const outcomes = await Promise.allSettled([
    setOrganizationStatus(app.deps, operator, 'req_suspend', {
      organization_id: id,
      status: 'suspended',
    }),
    setOrganizationStatus(app.deps, operator, 'req_archive', {
      organization_id: id,
      status: 'archived',
    }),
  ]);
  const done = outcomes.filter((o) => o.status === 'fulfilled');
  const refused = outcomes.filter((o) => o.status === 'rejected');
  expect(done).toHaveLength(1);
  expect(refused).toHaveLength(1);
  expect(refused[0].reason).toBeInstanceOf(Conflict);

  const audited = await app.deps.db
    .collection('audit')
    .countDocuments({ action: 'organization.status', 'target.id': id });
  expect(audited).toBe(1);

  // A change based on the newer read goes ahead as usual.
  const next = await setOrganizationStatus(app.deps, operator, 'req_again', {
    organization_id: id,
    status: 'active',
  });
  expect(next.item).toMatchObject({ status: 'active' });
});
