/** Views of approval rules (they document the OpenAPI responses). */
import {
  arrayOf,
  choice,
  count,
  dateTime,
  flag,
  freeObject,
  integer,
  nullable,
  text,
  view,
} from '../../lib/schema';
import { TENANT_STATUSES } from '../governance/schemas';
import { approvalRuleId } from './schemas';

const settings = {
  name: text('Rule name.', 128),
  required_approvals: nullable(integer('Approvals the rule asks for (null: as proposed).', 1, 5)),
  approver_roles: arrayOf(text('A role.', 32), 'Roles that may decide.', { maxItems: 2 }),
  approver_principals: arrayOf(text('A principal id.', 64), 'Principals that may decide.', {
    maxItems: 50,
  }),
  require_reason: flag('Decisions must give a reason.'),
  wait_seconds: count('Seconds after approval before execution may start.'),
  auto_execute: flag('Executes once approved and the wait is over.'),
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

export const approvalRuleView = view(
  {
    rule_id: approvalRuleId('Rule id.'),
    match: freeObject(
      'Which actions it governs: `action_kind`, `target_prefix`, `shared_context_id`.',
    ),
    ...settings,
    status: choice(TENANT_STATUSES, 'Only active rules govern new proposals.'),
    version: integer('1 at creation, one more at every change.', 1, 1_000_000),
    created_at: dateTime('When created.'),
    updated_at: dateTime('Last change.'),
  },
  ['rule_id', 'match', ...settingNames, 'status', 'version', 'created_at', 'updated_at'],
  'An approval rule.',
);

/** The rule in force on an action, as recorded when it was proposed. */
export const ruleInForceView = view(
  {
    rule_id: approvalRuleId('Rule id.'),
    version: integer('Version of the rule when the action was proposed.', 1, 1_000_000),
    ...settings,
  },
  ['rule_id', 'version', ...settingNames],
  'The approval rule in force: its settings when the action was proposed.',
);
