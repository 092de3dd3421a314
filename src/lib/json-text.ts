import type { ValidationIssue } from './errors';

/**
 * What `JSON.parse` accepts but the service must not: values it would change without a word
 * (numbers a double cannot hold exactly, strings that are not Unicode), keys it refuses or
 * would merge (a repeated key: it keeps the last value), and nesting too deep to walk. Found
 * by scanning the JSON text itself, because `JSON.parse` loses what tells them apart:
 * `1e-400` and `0` both parse to 0, a repeated key leaves one, and Node 20's revivers are not
 * given the source text (`context.source` arrived in Node 21). docs/conventions.md, "Bodies",
 * says what is refused and why.
 *
 * Runs only on text `JSON.parse` has accepted: it tracks where it is (for each issue's path)
 * but checks no syntax of its own.
 */
export function jsonTextIssues(text: string, maxDepth: number): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const frames: Frame[] = [];
  const at = (): (string | number)[] => ['body', ...frames.map((frame) => frame.key)];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const raw = text.slice(i, end + 1);
      // Only an escape can make a string differ from its text, or hold a lone surrogate (the
      // text was decoded from strict UTF-8, which has none).
      const escaped = raw.includes('\\');
      const value = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      const top = frames[frames.length - 1];
      if (top?.expectsKey) {
        top.key = value;
        top.expectsKey = false;
        if (repeated(top, value)) issues.push(duplicateKey(at(), value));
        if (value === '__proto__') {
          issues.push({
            loc: at(),
            msg: 'The key "__proto__" is not allowed: it would set the prototype of the object that holds it',
            type: 'forbidden_key',
          });
        }
      }
      if (escaped && LONE_SURROGATE.test(value)) issues.push(loneSurrogate(at(), value));
      i = end + 1;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      NUMBER.lastIndex = i;
      const token = NUMBER.exec(text)![0];
      const issue = numberIssue(token);
      if (issue) issues.push({ loc: at(), ...issue });
      i += token.length;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (frames.length >= maxDepth) {
        // Too deep to go on: anything below would be named at a path no one can use.
        return [
          {
            loc: at(),
            msg: `JSON should nest at most ${maxDepth} levels of objects and arrays`,
            type: 'too_deep',
            ctx: { max_depth: maxDepth },
          },
        ];
      }
      frames.push(
        c === OPEN_BRACE ? { key: '', expectsKey: true, keys: [] } : { key: 0, expectsKey: false },
      );
      i += 1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop();
      i += 1;
    } else if (c === COMMA) {
      const top = frames[frames.length - 1];
      if (typeof top.key === 'number') top.key += 1;
      else top.expectsKey = true;
      i += 1;
    } else {
      // Whitespace, `:`, and the letters of true, false and null.
      i += 1;
    }
  }
  return issues;
}

/** An open object (its current key, and the keys it had so far) or array (its current index). */
interface Frame {
  key: string | number;
  expectsKey: boolean;
  keys?: string[];
  /** The keys as a set, once the object has more than a few (looked up past that). */
  seen?: Set<string>;
  /** Keys already named as repeated, so a key sent three times is named once. */
  named?: Set<string>;
}

/** Objects up to this many keys are searched as a list: faster than a set for the small ones. */
const LIST_KEYS = 16;

/**
 * Whether the object already had `key`. `JSON.parse` keeps a repeated key's last value, other
 * parsers its first (or refuse the text): a reviewer reading the body sent could see another
 * request than the one stored, planned and executed. Each repeat is named once per object.
 */
function repeated(frame: Frame, key: string): boolean {
  const keys = frame.keys!;
  const had = frame.seen ? frame.seen.has(key) : keys.includes(key);
  if (!had) {
    if (frame.seen) frame.seen.add(key);
    else if (keys.push(key) > LIST_KEYS) frame.seen = new Set(keys);
    return false;
  }
  frame.named ??= new Set();
  if (frame.named.has(key)) return false;
  frame.named.add(key);
  return true;
}

function duplicateKey(loc: (string | number)[], key: string): ValidationIssue {
  return {
    loc,
    msg: `The key ${JSON.stringify(key)} is repeated in this object: JSON parsers disagree on which value counts. Send each key once`,
    type: 'duplicate_key',
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** A JSON number token (RFC 8259 grammar); sticky, so it reads exactly at `lastIndex`. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The index of the quote that closes the string opening at `start` (not an escaped one). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** A number as written, shortened for a message (a 400-digit integer is not echoed whole). */
const shown = (token: string): string => (token.length > 32 ? `${token.slice(0, 29)}...` : token);

/**
 * Why a number token cannot be kept exactly as written, or undefined. A double keeps every
 * integer up to 2^53 - 1 and every other finite value to about 17 significant digits (what
 * JSON numbers mean between programs, RFC 8259 section 6); the store keeps doubles as they
 * are, except -0, which it stores as 0.
 */
function numberIssue(token: string): Omit<ValidationIssue, 'loc'> | undefined {
  const value = Number(token);
  if (!Number.isFinite(value)) {
    return {
      msg: `Input should be a finite number: ${shown(token)} is beyond the largest number that can be stored (about 1.8e308)`,
      type: 'finite_number',
    };
  }
  if (value === 0) {
    const mantissa = token.split(/[eE]/)[0];
    if (/[1-9]/.test(mantissa)) {
      return {
        msg: `Number ${shown(token)} is too small to be stored: it would become 0. Send 0, or the value as a string`,
        type: 'number_underflow',
      };
    }
    if (Object.is(value, -0)) {
      return {
        msg: 'Number -0 cannot be stored: it would become 0. Send 0',
        type: 'negative_zero',
      };
    }
    return undefined;
  }
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return {
      msg: `Integer ${shown(token)} is beyond ±${Number.MAX_SAFE_INTEGER} (2^53 - 1) and cannot be stored exactly. Send it as a string`,
      type: 'unsafe_integer',
      ctx: { max: Number.MAX_SAFE_INTEGER },
    };
  }
  return undefined;
}

function loneSurrogate(loc: (string | number)[], value: string): ValidationIssue {
  const unit = value.match(LONE_SURROGATE)![0].charCodeAt(0).toString(16);
  return {
    loc,
    msg: `String holds a lone surrogate (\\u${unit}), which is not Unicode text: it cannot be stored as sent`,
    type: 'string_unicode',
  };
}
