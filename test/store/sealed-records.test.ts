import { createRecordSeal } from '../../src/signing/record-seal';
import { createSealedRecords, sealedFieldsOf } from '../../src/store/sealed-records';
import { RecordIntegrityError } from '../../src/lib/errors';

describe('sealed records', () => {
  const failures: string[] = [];
  const sealed = createSealedRecords(createRecordSeal(Buffer.alloc(32, 3)), (f) =>
    failures.push(`${f.collection}/${f.record_id}: ${f.problem}`),
  );

  it('seals only what grants authority: a key’s label or a principal’s name may change', () => {
    const record = sealed.sealed('principals', {
      _id: 'prn_1',
      name: 'Ada',
      role: 'member',
      organization_id: 'org_1',
      status: 'active',
      version: 1,
    });
    expect(sealed.problemOf('principals', { ...record, name: 'Ada L.' })).toBeNull();
    expect(sealed.problemOf('principals', { ...record, role: 'operator' })).not.toBeNull();
    expect(sealed.problemOf('principals', { ...record, version: 2 })).not.toBeNull();
    expect(sealedFieldsOf('principals', record)).toEqual({
      organization_id: 'org_1',
      role: 'member',
      status: 'active',
      version: 1,
    });
  });

  it('seals every field of a rule but its timestamps', () => {
    const rule = sealed.sealed('approval_rules', {
      _id: 'apr_1',
      required_approvals: 2,
      match: { action_kind: 'notify' },
      created_at: 'a',
      updated_at: 'b',
    });
    expect(sealed.problemOf('approval_rules', { ...rule, updated_at: 'c' })).toBeNull();
    expect(
      sealed.problemOf('approval_rules', { ...rule, match: { action_kind: 'webhook.post' } }),
    ).not.toBeNull();
    expect(sealed.problemOf('approval_rules', { ...rule, extra: true })).not.toBeNull();
  });

  it('refuses a record whose seal fails, and reports it', async () => {
    const key = sealed.sealed('api_keys', { _id: 'k1', principal_id: 'prn_a', status: 'revoked' });
    expect(await sealed.checked('api_keys', key)).toBe(key);
    expect(await sealed.checked('api_keys', null)).toBeNull();
    await expect(sealed.checked('api_keys', { ...key, status: 'active' })).rejects.toThrow(
      RecordIntegrityError,
    );
    expect(failures).toEqual(['api_keys/k1: its seal does not match its fields']);
  });
});
