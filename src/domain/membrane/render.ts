import markdownEscape from 'markdown-escape';
import MarkdownIt from 'markdown-it';
import stringify from 'safe-stable-stringify';
import { escapeXml } from '../../lib/escape-xml';

/**
 * The document formats of the membrane. Markdown is generated from the (redacted) payload,
 * every value escaped; HTML is that Markdown rendered by markdown-it with raw HTML off, in a
 * self-contained page with no script (its CSP forbids any).
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
/** Most items of one list a document shows (the JSON format shows all). */
const MAX_ITEMS = 200;

/**
 * Ids, digests, paths and field names (a word of `[A-Za-z0-9_.:/@+-]` with a `_`, `:`, `/`
 * or `.` in it, or a long hex digest) go in code spans, unescaped, so `grep act_01M8…` finds
 * them in the document; everything else is escaped text.
 */
const CODE_TOKEN = /^(?:(?=.*[_:/.])[A-Za-z0-9_.:/@+-]{1,200}|[0-9a-f]{32,128})$/;

const escaped = (text: string): string => markdownEscape(text).replace(/\|/g, '\\|');

/** A code span holding `text` as is (a fence longer than any backtick run in it). */
const codeSpan = (text: string): string => {
  const fence = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text.replace(/\|/g, '\\|')}${pad}${fence}`;
};

/**
 * Text as Markdown on one line: each id-like word a code span, the rest escaped; a value
 * that is not text (an object, a list, a number) is its canonical JSON in a code span.
 */
const cell = (value: unknown): string => {
  if (value !== null && typeof value === 'object') {
    return codeSpan((stringify(value) ?? 'null').replace(/\r?\n/g, ' '));
  }
  const text = typeof value === 'string' ? value : (stringify(value) ?? 'null');
  return text
    .replace(/\r?\n/g, ' ')
    .split(' ')
    .map((word) => (CODE_TOKEN.test(word) ? `\`${word}\`` : escaped(word)))
    .join(' ');
};

const isScalar = (value: unknown): boolean => value === null || typeof value !== 'object';

function section(name: string, value: unknown, level: number, lines: string[]): void {
  const heading = `${'#'.repeat(Math.min(level, 6))} ${cell(name)}`;
  if (Array.isArray(value)) {
    lines.push(heading, '');
    if (value.length === 0) lines.push('(none)', '');
    for (const item of value.slice(0, MAX_ITEMS)) {
      if (isScalar(item)) lines.push(`- ${cell(item)}`);
      else
        lines.push(
          `- ${Object.entries(item as Record<string, unknown>)
            .map(([k, v]) => `**${cell(k)}**: ${cell(v)}`)
            .join('; ')}`,
        );
    }
    if (value.length > MAX_ITEMS) lines.push(`- … ${value.length - MAX_ITEMS} more`);
    lines.push('');
    return;
  }
  if (isScalar(value)) {
    lines.push(heading, '', cell(value), '');
    return;
  }
  lines.push(heading, '');
  table(value as Record<string, unknown>, level, lines);
}

function table(value: Record<string, unknown>, level: number, lines: string[]): void {
  const entries = Object.entries(value);
  const scalars = entries.filter(([, v]) => isScalar(v));
  if (scalars.length > 0) {
    lines.push('| field | value |', '| --- | --- |');
    for (const [key, item] of scalars) lines.push(`| ${cell(key)} | ${cell(item)} |`);
    lines.push('');
  }
  for (const [key, item] of entries.filter(([, v]) => !isScalar(v))) {
    section(key, item, level + 1, lines);
  }
}

/** The payload as a Markdown document under `title`. */
export function toMarkdown(title: string, value: unknown): string {
  const lines = [`# ${cell(title)}`, ''];
  if (isScalar(value) || Array.isArray(value)) section('value', value, 2, lines);
  else table(value as Record<string, unknown>, 1, lines);
  return `${lines.join('\n').trimEnd()}\n`;
}

const STYLE =
  'body{font:14px/1.5 system-ui,sans-serif;margin:2rem;max-width:60rem;color:#1b1f24}' +
  'table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}' +
  'h1{font-size:1.4rem}h2{font-size:1.2rem}h3,h4,h5,h6{font-size:1rem}';

/** The payload as a self-contained HTML page (no script, no outside resource). */
export function toHtml(title: string, value: unknown): string {
  const body = markdown.render(toMarkdown(title, value));
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeXml(title)}</title><style>${STYLE}</style></head>`,
    `<body>${body}</body></html>`,
    '',
  ].join('\n');
}
