/** Views of repairs (they document the OpenAPI responses). */
import * as schema from '../../lib/schema';
import { REPAIR_STATUSES, REPAIR_STRATEGIES, repairId } from './schemas';

const sha256 = (description: string) => schema.text(description, 80);

export const repairView = schema.view(
  {
    repair_id: repairId('Repair id.'),
    object_id: schema.idRef('obj', 'The object repaired.'),
    strategy: schema.choice(REPAIR_STRATEGIES, 'Strategy.'),
    status: schema.choice(
      REPAIR_STATUSES,
      '`diagnosing`, `planned`, `awaiting_approval`, `applying`, `verifying`, then `repaired`, `no_action_needed`, `rejected` or `failed`.',
    ),
    reason: schema.nullable(schema.text('Why it was requested.', 1024)),
    to_version: schema.nullable(schema.integer('Version asked for.', 1, Number.MAX_SAFE_INTEGER)),
    checkpoint_id: schema.nullable(schema.idRef('chk', 'Checkpoint asked for.')),
    requested_by: schema.freeObject('`principal_id` and `key_id` of the requester.'),
    workflow_id: schema.text('Temporal workflow id (`repair-rep_…`).', 128),
    workflow_url: schema.workflowUrl,
    steps: schema.arrayOf(
      schema.freeObject('`step` (diagnose, plan, apply, verify), `outcome`, `at`, `detail`.'),
      'Steps so far, in order.',
      { maxItems: 8 },
    ),
    findings: schema.arrayOf(
      schema.freeObject('`check`, `ok`, `detail`.'),
      'What the diagnosis compared.',
      { maxItems: 64 },
    ),
    plan: schema.nullable(
      schema.freeObject(
        'What the repair writes: `base_version`, `attributes`, `external_state`, the `diff` and its `source`, with its `digest`.',
      ),
    ),
    child_action_id: schema.nullable(
      schema.idRef('act', 'The `world.restore_object` action that applies the plan.'),
    ),
    result: schema.nullable(
      schema.freeObject('The `version` and `external_revision` the repair wrote.'),
    ),
    error: schema.nullable(schema.text('Why it failed.', 2048)),
    status_timestamps: schema.freeObject('When it entered each status.'),
    ledger_seq: schema.nullable(
      schema.integer('Its slot in the repair ledger, once ended.', 1, Number.MAX_SAFE_INTEGER),
    ),
    created_at: schema.dateTime('When requested.'),
    updated_at: schema.dateTime('Last change.'),
    completed_at: schema.nullable(schema.dateTime('When it ended.')),
  },
  [
    'repair_id',
    'object_id',
    'strategy',
    'status',
    'workflow_id',
    'workflow_url',
    'steps',
    'created_at',
  ],
  'A repair of one world object.',
);

export const repairabilityView = schema.view(
  {
    object_id: schema.idRef('obj', 'The object.'),
    version: schema.integer('Its version now.', 1, Number.MAX_SAFE_INTEGER),
    strategies: schema.arrayOf(
      schema.freeObject(
        '`strategy`, `applicable`, `findings`, and `changes`: what it would change now (`attributes`, `external_state`), with its `source`.',
      ),
      'Each strategy, as it would go now.',
      { maxItems: 3 },
    ),
    newest_checkpoint: schema.nullable(
      schema.freeObject('The newest completed checkpoint: `checkpoint_id`, `completed_at`.'),
    ),
    good_version: schema.nullable(
      schema.integer(
        'The version `restore_last_good` would bring back by default.',
        1,
        Number.MAX_SAFE_INTEGER,
      ),
    ),
    running_repair: schema.nullable(repairId('The repair running on it, if any.')),
  },
  ['object_id', 'version', 'strategies'],
  'How an object can be repaired.',
);

export const repairCertificateView = schema.view(
  {
    algorithm: schema.choice(['Ed25519'], 'Signature algorithm.'),
    payload: schema.text('The signed bytes: canonical JSON, base64.', 2_000_000),
    signature: schema.text('Ed25519 signature of the payload bytes, hex.', 128),
    public_key: schema.freeObject('`hex` (raw 32 bytes) and `pem` (SPKI) of the signing key.'),
    certificate: schema.freeObject(
      'The payload decoded: `version`, `issued_at`, `object_id`, `chain` (`head`, `count`, `valid`, `broken_at`), and `records` (the ledger entries covered).',
    ),
    chain_head: schema.nullable(sha256('Digest of the newest ledger entry.')),
    count: schema.count('Entries in the ledger.'),
    valid: schema.flag('Whether every entry covered matched its digest and link when issued.'),
  },
  ['algorithm', 'payload', 'signature', 'public_key', 'certificate', 'count', 'valid'],
  'A signed certificate over the repair ledger.',
);
