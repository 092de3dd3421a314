import type { Collection, Document } from 'mongodb';

/**
 * Documents per value of `field`, plus `total` (`$group` + `$sum`: one accumulator, which
 * is all FerretDB v1 computes correctly).
 */
export async function countBy<T extends Document>(
  collection: Collection<T>,
  field: string,
): Promise<Record<string, number>> {
  const groups = await collection
    .aggregate<{ _id: string | null; n: number }>([
      { $group: { _id: `$${field}`, n: { $sum: 1 } } },
    ])
    .toArray();
  const counts: Record<string, number> = {};
  let total = 0;
  for (const group of groups) {
    counts[group._id ?? 'unknown'] = group.n;
    total += group.n;
  }
  return { ...counts, total };
}
