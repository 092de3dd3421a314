import { cursorOfOtherFilter, type CursorFormat, type FeedCursorPosition } from '../lib/cursor';
import { parseEntries, type FeedEntry, type SlotFeed } from './slot-feed';

/**
 * What a reader found for one entry: the record to show (`{ keep }`), a record that is there
 * but not on this page (`'passed'`: another filter), or a record gone for good (`'gone'`).
 */
export type Verdict<R> = { keep: R } | 'passed' | 'gone';

/** A place in a chain: a slot and an entry's index in it. */
export interface FeedPlace {
  slot: number;
  index: number;
}

/** Where a page of a feed ends: a place in the chain its filter walks, named by its kind. */
export type FeedPosition<C extends string> = { chain: C } & FeedPlace;

/**
 * The position a feed cursor holds; 422 on `cursor` unless it matches the feed's format and
 * is a place in `chain`, the chain this page's filter walks (a cursor of another query
 * means nothing here).
 */
export function decodeFeedCursor<C extends string>(
  format: CursorFormat<FeedCursorPosition<string>>,
  cursor: string,
  chain: C,
): FeedPosition<C> {
  const position = format.decode(cursor);
  if (position.chain !== chain) throw cursorOfOtherFilter(chain);
  return { chain, slot: position.slot, index: position.index };
}

/** A chain of a feed: its kind (what a cursor names) and its `_id` prefix. */
export interface Chain<C extends string> {
  kind: C;
  id: string;
}

/**
 * The chain a page walks: the first kind `named` gives a name to (most selective first; the
 * reader checks the other filters on each record), else `all`, which lists every record.
 */
export function chainNamed<C extends string>(
  named: readonly (readonly [C, string | null | undefined])[],
): Chain<C | 'all'> {
  for (const [kind, name] of named) if (name) return { kind, id: `${kind}:${name}` };
  return { kind: 'all', id: 'all' };
}

/** A kept record and where its entry is. */
export interface WalkRow<R> extends FeedPlace {
  record: R;
}

/** What a walk reads of a feed. */
export type FeedReader = Pick<SlotFeed, 'head' | 'slot' | 'markSkip'>;

type Step =
  | { kind: 'enter'; slot: number; count: number; whole: boolean; skip?: number }
  | { kind: 'entry'; slot: number; index: number; entry: FeedEntry; verdict?: Verdict<unknown> }
  | { kind: 'jump'; slot: number; skip: number }
  | { kind: 'end'; slot: number };

/**
 * Walks `chain` newest first from `start` (the head when absent) until `limit + 1` entries
 * are kept or a slot is missing (below slot 1, or a forged cursor),
 * checking `limit + 1 − kept` entries at a time with `check` (one batch of reads by `_id`).
 *
 * `compress` (feeds whose records leave for good, the inbox): a walk that finds a run of
 * slots whose entries are all gone marks the run's top slot with where the run ends
 * (`skip`, `SlotFeed.markSkip`), and a later walk entering a marked slot goes straight on
 * there, reading one slot instead of the run and its entries. A slot is marked only when
 * this walk checked every one of its entries (or passed it by a mark), so a cursor starting
 * inside a slot marks nothing above it. Marks are true for ever because a gone record never
 * comes back under the same entry: a record listed again is listed under a new tag.
 */
export async function walkFeed<R>(options: {
  feed: FeedReader;
  chain: string;
  limit: number;
  start?: FeedPlace;
  check: (entries: FeedEntry[]) => Promise<Verdict<R>[]>;
  compress?: boolean;
}): Promise<WalkRow<R>[]> {
  const { feed, chain, limit, check } = options;
  const compress = options.compress === true;
  const trail: Step[] = [];
  let slot = options.start?.slot ?? (await feed.head(chain));
  let entries: FeedEntry[] | null = null;
  let index = 0;

  /** Reads slot `from` (going on past marked slots when compressing), ready to walk down. */
  async function enter(from: number, startIndex = Infinity): Promise<void> {
    let doc = await feed.slot(chain, from);
    while (compress && doc?.skip !== undefined && doc.skip < from) {
      trail.push({ kind: 'jump', slot: from, skip: doc.skip });
      from = doc.skip;
      startIndex = Infinity;
      doc = await feed.slot(chain, from);
    }
    slot = from;
    if (!doc) {
      entries = null;
      trail.push({ kind: 'end', slot: from });
      return;
    }
    entries = parseEntries(doc.entries);
    index = Math.min(startIndex, entries.length);
    trail.push({
      kind: 'enter',
      slot: from,
      count: index,
      whole: index === entries.length,
      ...(doc.skip !== undefined ? { skip: doc.skip } : {}),
    });
  }

  await enter(slot, options.start?.index);
  let kept = 0;
  while (entries && kept <= limit) {
    const batch: Extract<Step, { kind: 'entry' }>[] = [];
    while (entries && batch.length < limit + 1 - kept) {
      if (index > 0) {
        index -= 1;
        const step = {
          kind: 'entry' as const,
          slot,
          index,
          entry: (entries as FeedEntry[])[index],
        };
        trail.push(step);
        batch.push(step);
        continue;
      }
      await enter(slot - 1);
    }
    const verdicts = await check(batch.map((step) => step.entry));
    batch.forEach((step, i) => {
      step.verdict = verdicts[i];
      if (typeof verdicts[i] === 'object') kept += 1;
    });
  }
  const { rows, marks } = replay<R>(trail, compress);
  await Promise.all(
    marks.map(({ top, skip }) => feed.markSkip(chain, top, skip).catch(() => undefined)),
  );
  return rows;
}

/** The kept rows of a walk in order, and the marks its runs of gone slots call for. */
function replay<R>(trail: Step[], compress: boolean) {
  const rows: WalkRow<R>[] = [];
  const marks: { top: number; skip: number }[] = [];
  let run: { top: number; skip?: number } | null = null;
  let current: { slot: number; whole: boolean; live: boolean } | null = null;
  const gone = (slot: number, skip?: number) => {
    run ??= { top: slot, ...(skip !== undefined ? { skip } : {}) };
  };
  const close = (at: number) => {
    if (run && (run.skip === undefined || run.skip > at)) marks.push({ top: run.top, skip: at });
    run = null;
  };
  const complete = (state: { slot: number; whole: boolean; live: boolean }, skip?: number) => {
    if (state.whole && !state.live) gone(state.slot, skip);
    else close(state.slot);
  };
  let currentSkip: number | undefined;
  for (const step of trail) {
    if (step.kind === 'enter') {
      current = { slot: step.slot, whole: step.whole, live: false };
      currentSkip = step.skip;
      if (step.count === 0) complete(current, currentSkip);
    } else if (step.kind === 'jump') {
      gone(step.slot, step.skip);
    } else if (step.kind === 'end') {
      close(step.slot);
    } else {
      const verdict = step.verdict;
      if (verdict !== 'gone' && current) current.live = true;
      if (typeof verdict === 'object') {
        rows.push({ record: verdict.keep as R, slot: step.slot, index: step.index });
      }
      if (step.index === 0 && current) complete(current, currentSkip);
    }
  }
  // The walk stopped inside a slot holding a kept record: the run above it ends there.
  if (current?.live) close(current.slot);
  return { rows, marks: compress ? marks : [] };
}

/** A kept record and the position a page ending with it continues after. */
export interface PageRow<R, C extends string> {
  record: R;
  next: FeedPosition<C>;
}

/** `walkFeed` down `chain` from `after` (the head when absent), each row with its position. */
export async function walkChain<R, C extends string>(
  options: Omit<Parameters<typeof walkFeed<R>>[0], 'chain' | 'start'> & {
    chain: Chain<C>;
    after?: FeedPlace;
  },
): Promise<PageRow<R, C>[]> {
  const { chain, after, ...walk } = options;
  const rows = await walkFeed<R>({
    ...walk,
    chain: chain.id,
    ...(after ? { start: { slot: after.slot, index: after.index } } : {}),
  });
  return rows.map((row) => ({
    record: row.record,
    next: { chain: chain.kind, slot: row.slot, index: row.index },
  }));
}
