/** Views of checkpoints (they document the OpenAPI responses). */
import {
  arrayOf,
  choice,
  dateTime,
  freeObject,
  integer,
  nullable,
  text,
  view,
} from '../../lib/schema';
import { CHECKPOINT_SCOPES, CHECKPOINT_STATUSES, checkpointId } from './schemas';

export const checkpointView = view(
  {
    checkpoint_id: checkpointId('Checkpoint id.'),
    label: nullable(text('Label.', 200)),
    scope: arrayOf(choice(CHECKPOINT_SCOPES, 'A scope.'), 'What it covers.', { maxItems: 5 }),
    status: choice(CHECKPOINT_STATUSES, '`running`, then `completed` or `failed`.'),
    workflow_id: text('Temporal workflow id (`checkpoint-chk_…`).', 128),
    scopes: freeObject(
      'Per scope as it completes: `count`, `sha256` and the collections copied, each with its parts (artifact paths and digests).',
    ),
    manifest: nullable(freeObject('Where `manifest.json` is: `path`, `artifact_id`, `sha256`.')),
    history_head: nullable(text('The world history head when it began.', 64)),
    world_revision: nullable(
      integer('The world revision when it began.', 0, Number.MAX_SAFE_INTEGER),
    ),
    error: nullable(text('Why it failed.', 2048)),
    requested_by: text('Requesting principal (`schedule` for scheduled ones).', 64),
    created_at: dateTime('When requested.'),
    updated_at: dateTime('Last change.'),
    completed_at: nullable(dateTime('When it completed.')),
  },
  ['checkpoint_id', 'scope', 'status', 'workflow_id', 'scopes', 'requested_by', 'created_at'],
  'A runtime checkpoint.',
);
