/** Views of approval rules (they document the OpenAPI responses). */
import * as schema from '../../lib/schema';
import { TENANT_STATUSES } from '../governance/schemas';
import { approvalRuleId } from './schemas';

const settings = {
  name: schema.text('Rule name.', 128),
  required_approvals: schema.nullable(
    schema.integer('Approvals the rule asks for (null: as proposed).', 1, 5),
  ),
  approver_roles: schema.arrayOf(schema.text('A role.', 32), 'Roles that may decide.', {
    maxItems: 2,
  }),
  approver_principals: schema.arrayOf(
    schema.text('A principal id.', 64),
    'Principals that may decide.',
    {
      maxItems: 50,
    },
  ),
  require_reason: schema.flag('Decisions must give a reason.'),
  wait_seconds: schema.count('Seconds after approval before execution may start.'),
  auto_execute: schema.flag('Executes once approved and the wait is over.'),
  require_approver_signature: schema.flag(
    "Decisions must carry the approver's own signature (absent: not required).",
  ),
};
const settingNames = [
  'name',
  'required_approvals',
  'approver_roles',
  'approver_principals',
  'require_reason',
  'wait_seconds',
  'auto_execute',
] as const;

export const approvalRuleView = schema.view(
  {
    rule_id: approvalRuleId('Rule id.'),
    match: schema.freeObject(
      'Which actions it governs: `action_kind`, `target_prefix`, `shared_context_id`.',
    ),
    ...settings,
    status: schema.choice(TENANT_STATUSES, 'Only active rules govern new proposals.'),
    version: schema.integer('1 at creation, one more at every change.', 1, 1_000_000),
    created_at: schema.dateTime('When created.'),
    updated_at: schema.dateTime('Last change.'),
  },
  ['rule_id', 'match', ...settingNames, 'status', 'version', 'created_at', 'updated_at'],
  'An approval rule.',
);

/** The rule in force on an action, as recorded when it was proposed. */
export const ruleInForceView = schema.view(
  {
    rule_id: approvalRuleId('Rule id.'),
    version: schema.integer('Version of the rule when the action was proposed.', 1, 1_000_000),
    ...settings,
  },
  ['rule_id', 'version', ...settingNames],
  'The approval rule in force: its settings when the action was proposed.',
);
