import { withIdAs } from '../../src/lib/records';

describe('withIdAs', () => {
  it('renames _id to the view id, first, and keeps every other field', () => {
    const view = withIdAs({ _id: 'tsk_1', title: 't', version: 2 }, 'task_id');
    expect(view).toEqual({ task_id: 'tsk_1', title: 't', version: 2 });
    expect(Object.keys(view)).toEqual(['task_id', 'title', 'version']);
    expect(view).not.toHaveProperty('_id');
  });
});
