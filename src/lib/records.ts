/** A stored record as clients see it: `_id` under the view's own id field, first. */
export type WithIdAs<K extends string, R extends { _id: unknown }> = { [P in K]: R['_id'] } & Omit<
  R,
  '_id'
>;

/**
 * Renames a record's `_id` to the id field its view names (`rule_id`, `task_id`, ...), keeping
 * every other field as stored: views of plain records are this and nothing more.
 */
export function withIdAs<K extends string, R extends { _id: unknown }>(
  record: R,
  key: K,
): WithIdAs<K, R> {
  const { _id, ...rest } = record;
  return { [key]: _id, ...rest } as WithIdAs<K, R>;
}
