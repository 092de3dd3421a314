import { Type, type TSchema, type TString } from '@sinclair/typebox';
import { Invalid } from './errors';

/**
 * A list's cursor format. A cursor is the last item's sort key written as text, in a form a
 * pattern describes exactly; the OpenAPI document states that pattern on the list's `cursor`
 * (and its `next_cursor`), so a client or a fuzzer knows which values are cursors.
 *
 * Invariant: every value matching the pattern is a position keyset paging can continue
 * after, held by an item or not (a time between two items, an id never issued), so a
 * cursor is refused only when it does not match. A position only ever reaches a query as
 * a bound compared with stored values, never as a date computation's input unchecked.
 */
export interface CursorFormat<P> {
  /** The `cursor` parameter's schema (pattern, description, example). */
  readonly schema: TString;
  /** The pattern without anchors, how it reads and an example: to combine formats. */
  readonly body: string;
  readonly describe: string;
  readonly example: string;
  encode(position: P): string;
  /** The position `cursor` holds; 422 on `cursor` when it does not match the pattern. */
  decode(cursor: string): P;
}

interface FormatSpec<P> {
  /** Capturing groups for the parts `read` takes; no anchors. */
  body: string;
  /** How the format reads, for the document and the 422. */
  describe: string;
  example: string;
  read(groups: string[]): P;
  write(position: P): string;
}

const invalid = (msg: string) =>
  new Invalid([{ loc: ['query', 'cursor'], msg, type: 'value_error' }]);

const cursorSchema = (body: string, describe: string, example: string): TString =>
  Type.String({
    minLength: 1,
    maxLength: 512,
    pattern: `^(?:${body})$`,
    description: `Cursor from the previous page's \`next_cursor\`: ${describe}.`,
    examples: [example],
  });

function cursorFormat<P>(spec: FormatSpec<P>): CursorFormat<P> {
  const whole = new RegExp(`^(?:${spec.body})$`);
  const parse = (text: string): P | undefined => {
    const match = whole.exec(text);
    return match ? spec.read(match.slice(1)) : undefined;
  };
  return {
    schema: cursorSchema(spec.body, spec.describe, spec.example),
    body: spec.body,
    describe: spec.describe,
    example: spec.example,
    encode(position) {
      const text = spec.write(position);
      // A cursor the next request would refuse is a bug here, not the client's problem.
      if (parse(text) === undefined) throw new Error(`cursor ${text} does not match its format`);
      return text;
    },
    decode(cursor) {
      const position = parse(cursor);
      if (position === undefined) throw invalid(`Invalid cursor: expected ${spec.describe}`);
      return position;
    },
  };
}

/** An instant as the service writes them (UTC, milliseconds, `Z`): they sort as text. */
const INSTANT =
  '[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z';
/** A record id as lists key them: record ids (`aud_…`), key ids (12 hex), handles. */
const KEY = '[A-Za-z0-9_.:-]{1,128}';
/** A count (slot, index): a non-negative safe integer. */
const COUNT = '0|[1-9][0-9]{0,14}';

/** A position in a list sorted newest first by (`at`, `_id`). */
export interface TimePosition {
  at: string;
  id: string;
}

/** Lists newest first by time: `<at>~<id>` of the page's last item. */
export const timeCursor: CursorFormat<TimePosition> = cursorFormat({
  body: `(${INSTANT})~(${KEY})`,
  describe: '`<time>~<id>`, the last item’s time (ISO 8601, UTC, milliseconds) and id',
  example: '2026-01-01T00:00:00.000Z~aud_01JG0000000000000000000000',
  read: ([at, id]) => ({ at: at, id: id }),
  write: (position) => `${position.at}~${position.id}`,
});

const idFormats = new Map<string, CursorFormat<string>>();

/**
 * Lists in id order (ULIDs: time order): the last item's id, `<prefix>_…`. Ids are unique
 * and never change, so "strictly after the last id seen" neither repeats nor skips.
 */
export function idCursor(prefix: string): CursorFormat<string> {
  let format = idFormats.get(prefix);
  if (!format) {
    format = cursorFormat({
      body: `(${prefix}_[0-9A-Za-z]{10,40})`,
      describe: `the last item’s id (\`${prefix}_…\`)`,
      example: `${prefix}_01JG0000000000000000000000`,
      read: ([id]) => id,
      write: (id) => id,
    });
    idFormats.set(prefix, format);
  }
  return format;
}

/** Static registries in name order: the last entry's id. */
export const nameCursor: CursorFormat<string> = cursorFormat({
  body: '([A-Za-z0-9_.-]{1,128})',
  describe: 'the last entry’s id',
  example: 'a',
  read: ([id]) => id,
  write: (id) => id,
});

/** A place in one chain of a feed: the chain's kind, a slot and an entry's index in it. */
export interface FeedCursorPosition<C extends string> {
  chain: C;
  slot: number;
  index: number;
}

/**
 * Feeds walked along chains (`<chain>~<slot>~<index>`); `chains` are the kinds of chain the
 * list's filters choose from. Which chain a page walks depends on its filters, which the
 * document cannot tie to the cursor: the list checks it (`decodeFeedCursor`).
 */
export function feedCursor<C extends string>(
  chains: readonly C[],
): CursorFormat<FeedCursorPosition<C>> {
  return cursorFormat({
    body: `(${chains.join('|')})~(-?(?:${COUNT}))~(${COUNT})`,
    describe: `\`<chain>~<slot>~<index>\`, a place in the chain the list's filters walk (${chains.map((c) => `\`${c}\``).join(', ')})`,
    example: `${chains[0]}~1~0`,
    read: ([chain, slot, index]) => ({
      chain: chain as C,
      slot: Number(slot),
      index: Number(index),
    }),
    write: (position) => `${position.chain}~${position.slot}~${position.index}`,
  });
}

/** The chains of the approvals inbox's arrivals feed (`src/store/inbox-arrivals.ts`). */
export const INBOX_CHAINS = ['all', 'context', 'proposer', 'kind'] as const;
/** Inbox cursors: a place in the chain the inbox's filters walk. */
export const inboxCursor = feedCursor(INBOX_CHAINS);

/** The chains of the events history feed (`src/store/event-feed.ts`). */
export const HISTORY_CHAINS = ['all', 'object', 'family'] as const;
/** Events history cursors: a place in the chain the history's filters walk. */
export const historyCursor = feedCursor(HISTORY_CHAINS);

/** A place in the request ledger: a row's time, its bucket (none: not yet bucketed), index. */
export interface LedgerCursorPosition {
  at: string;
  bucket: string | null;
  index: number;
}

/** The request ledger: `<at>~<bucket>~<index>` (bucket empty for rows not in one). */
export const ledgerCursor: CursorFormat<LedgerCursorPosition> = cursorFormat({
  body: `(${INSTANT})~(${KEY})?~(${COUNT})`,
  describe:
    '`<time>~<bucket>~<index>`, the last row’s time, ledger bucket (may be empty) and index in it',
  example: '2026-01-01T00:00:00.000Z~~0',
  read: ([at, bucket, index]) => ({ at: at, bucket: bucket ?? null, index: Number(index) }),
  write: (position) => `${position.at}~${position.bucket ?? ''}~${position.index}`,
});

/**
 * The schema of a `cursor` a list takes in more than one format (which one a page uses
 * depends on its filters; the list checks the pairing).
 */
export const eitherCursor = (...formats: CursorFormat<unknown>[]): TString =>
  cursorSchema(
    formats.map((format) => format.body).join('|'),
    formats.map((format) => format.describe).join('; or '),
    formats[0].example,
  );

/** 422 on `cursor`: a cursor of another list's filters (a feed of another chain). */
export const cursorOfOtherFilter = (expected: string): Invalid =>
  invalid(
    `Invalid cursor: it continues another filter's list (this one walks \`${expected}\`); page again from the start`,
  );

/**
 * `next_cursor` of a list whose `cursor` parameter is `cursor`: the same format, so what a
 * page hands out is what the next request accepts; null at the end.
 */
export function nextCursorSchema(cursor: TSchema): TSchema {
  const { pattern, maxLength } = cursor as { pattern?: string; maxLength?: number };
  return Type.Union([
    Type.String({
      ...(pattern ? { pattern } : {}),
      ...(maxLength ? { maxLength } : {}),
      description: 'Cursor of the next page (null at the end).',
    }),
    Type.Null(),
  ]);
}
