import type { ScaffoldKind } from './types';

/**
 * Rule notations: outer-totalistic life rules in B/S form (`B3/S23`) and Wolfram's
 * elementary rules (0..255, canonical `W110`). Canonical text is what digests, specs and
 * reports show, so equal rules always print the same way.
 */

/** A rule text or number that cannot be read; the message names the problem. */
export class RuleError extends Error {
  override readonly name = 'RuleError';
}

/** An outer-totalistic rule: `birth[n]` / `survive[n]` for n live neighbours (0..8). */
export interface LifeRule {
  birth: boolean[];
  survive: boolean[];
  /** Canonical `B<digits>/S<digits>`, digits ascending. */
  text: string;
}

/** A Wolfram elementary rule: bit `(left << 2) | (centre << 1) | right` is the next cell. */
export interface ElementaryRule {
  number: number;
  /** Canonical `W<n>`. */
  text: string;
}

const LIFE_RULE_SHAPE = /^B([^/S]*)\/?S(.*)$/;

/** Reads `B3/S23` (case-insensitive; the slash may be left out); digits 0..8, each once. */
export function parseLifeRule(text: string): LifeRule {
  const trimmed = text.trim();
  if (trimmed === '') throw new RuleError('life rule is empty; expected B/S notation like B3/S23');
  const match = LIFE_RULE_SHAPE.exec(trimmed.toUpperCase());
  if (!match)
    throw new RuleError(`life rule ${JSON.stringify(text)} is not in B/S notation like B3/S23`);
  const birth = neighbourCounts(match[1] ?? '', 'birth (B)', text);
  const survive = neighbourCounts(match[2] ?? '', 'survival (S)', text);
  return { birth, survive, text: `B${digitsOf(birth)}/S${digitsOf(survive)}` };
}

function neighbourCounts(digits: string, part: string, text: string): boolean[] {
  const counts = new Array<boolean>(9).fill(false);
  for (const char of digits) {
    if (!/[0-9]/.test(char))
      throw new RuleError(
        `life rule ${JSON.stringify(text)}: ${JSON.stringify(char)} in the ${part} list is not a digit`,
      );
    const n = Number(char);
    if (n > 8)
      throw new RuleError(
        `life rule ${JSON.stringify(text)}: neighbour count ${n} in the ${part} list is out of range 0..8`,
      );
    if (counts[n])
      throw new RuleError(
        `life rule ${JSON.stringify(text)}: neighbour count ${n} appears twice in the ${part} list`,
      );
    counts[n] = true;
  }
  return counts;
}

function digitsOf(counts: boolean[]): string {
  return counts.map((on, n) => (on ? String(n) : '')).join('');
}

/** Reads an elementary rule: an integer 0..255, or its text (`110`, `W110`). */
export function parseElementaryRule(rule: number | string): ElementaryRule {
  let n: number;
  if (typeof rule === 'number') {
    n = rule;
  } else {
    const match = /^W?(\d{1,3})$/i.exec(rule.trim());
    if (!match)
      throw new RuleError(
        `elementary rule ${JSON.stringify(rule)} is not a number 0..255 (or W<n>, like W110)`,
      );
    n = Number(match[1]);
  }
  if (!Number.isInteger(n) || n < 0 || n > 255)
    throw new RuleError(
      `elementary rule ${String(rule)} is out of range: expected an integer 0..255`,
    );
  return { number: n, text: `W${n}` };
}

/** The canonical text of a scaffold's rule (`B3/S23`, `W110`); throws `RuleError`. */
export function canonicalRule(scaffold: ScaffoldKind, rule: string | number): string {
  if (scaffold === 'elementary-1d') return parseElementaryRule(rule).text;
  if (typeof rule !== 'string')
    throw new RuleError(`life rule must be B/S text like B3/S23, got the number ${rule}`);
  return parseLifeRule(rule).text;
}
