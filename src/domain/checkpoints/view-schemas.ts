/** Views of checkpoints (they document the OpenAPI responses). */
import * as schema from '../../lib/schema';
import { CHECKPOINT_SCOPES, CHECKPOINT_STATUSES, checkpointId } from './schemas';

export const checkpointView = schema.view(
  {
    checkpoint_id: checkpointId('Checkpoint id.'),
    label: schema.nullable(schema.text('Label.', 200)),
    scope: schema.arrayOf(schema.choice(CHECKPOINT_SCOPES, 'A scope.'), 'What it covers.', {
      maxItems: 5,
    }),
    status: schema.choice(CHECKPOINT_STATUSES, '`running`, then `completed` or `failed`.'),
    workflow_id: schema.text('Temporal workflow id (`checkpoint-chk_…`).', 128),
    workflow_url: schema.workflowUrl,
    scopes: schema.freeObject(
      'Per scope as it completes: `count`, `sha256` and the collections copied, each with its parts (artifact paths and digests).',
    ),
    manifest: schema.nullable(
      schema.freeObject('Where `manifest.json` is: `path`, `artifact_id`, `sha256`.'),
    ),
    history_head: schema.nullable(schema.text('The world history head when it began.', 64)),
    world_revision: schema.nullable(
      schema.integer('The world revision when it began.', 0, Number.MAX_SAFE_INTEGER),
    ),
    error: schema.nullable(schema.text('Why it failed.', 2048)),
    requested_by: schema.text('Requesting principal (`schedule` for scheduled ones).', 64),
    created_at: schema.dateTime('When requested.'),
    updated_at: schema.dateTime('Last change.'),
    completed_at: schema.nullable(schema.dateTime('When it completed.')),
  },
  [
    'checkpoint_id',
    'scope',
    'status',
    'workflow_id',
    'workflow_url',
    'scopes',
    'requested_by',
    'created_at',
  ],
  'A runtime checkpoint.',
);
