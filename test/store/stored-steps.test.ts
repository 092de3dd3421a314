import type { SessionStepRecord } from '../../src/store/session-steps.repo';
import { packStep, unpackStep } from '../../src/store/stored-steps';

const record: SessionStepRecord = {
  _id: 'ses_a:3',
  session_id: 'ses_a',
  step: 3,
  command: 'list_objects',
  args: { limit: 50 },
  output: { kind: null, items: [{ object_id: 'obj_1', version: 2 }], count: 1, truncated: false },
  at: '2026-11-25T14:00:00.000Z',
  identity_digest: 'a'.repeat(64),
  actor: { principal_id: 'prn_1', key_id: 'key_1' },
  state: {
    steps: 3,
    closed: false,
    by_command: { note: 2, list_objects: 1 },
    notes: 2,
    note_steps: [1, 2],
    objects: ['obj_1'],
    memory_digest: 'b'.repeat(64),
    first_at: '2026-11-25T13:59:00.000Z',
  },
};

describe('stored steps', () => {
  it('keep the key and scalars as fields and the rest as one text, and read back the same record', () => {
    const stored = packStep(record);
    expect(Object.keys(stored)).toEqual(['_id', 'session_id', 'step', 'command', 'at', 'packed']);
    const read = unpackStep(stored);
    expect(read).toEqual(record);
    // The same key order too: dossiers render records byte for byte.
    expect(JSON.stringify(read)).toBe(JSON.stringify(record));
  });
});
