/**
 * The patch the rolling-upgrade test ships: a workflow started on a build with it records
 * this patch marker, then one extra command (a memo upsert) before its own code runs.
 */
export const UPGRADE_PATCH = 'upgrade-test';
export const UPGRADE_MEMO = { upgraded_by: UPGRADE_PATCH };
