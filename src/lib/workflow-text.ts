/**
 * Text a person reads in the Temporal Web UI: workflow summaries (one line, at most 200
 * bytes: the UI's list view shows them), Markdown details, activity and timer summaries.
 * Pure and deterministic, so workflow code and the api build them alike (no Buffer here:
 * it runs in the workflow sandbox).
 */

/** The Web UI's limit for a workflow's static summary (bytes of UTF-8). */
export const SUMMARY_MAX_BYTES = 200;

const encoder = new TextEncoder();

/** The text cut to at most `maxBytes` of UTF-8 (ending in `…` when cut), on one line. */
export function oneLine(text: string, maxBytes = SUMMARY_MAX_BYTES): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (encoder.encode(line).length <= maxBytes) return line;
  let cut = '';
  let bytes = 0;
  const room = maxBytes - 3; // '…' is three bytes
  for (const char of line) {
    const size = encoder.encode(char).length;
    if (bytes + size > room) break;
    cut += char;
    bytes += size;
  }
  return `${cut}…`;
}

/** A value as Markdown inline code (backticks inside are replaced, never broken out of). */
export const code = (value: string): string => `\`${value.replace(/`/g, "'")}\``;

/** Free text (a name, a reason) as Markdown text: its markup characters escaped, one line. */
export const mdText = (value: string): string =>
  value.replace(/\s+/g, ' ').replace(/([\\`*_[\]<>#|~])/g, '\\$1');

/** `Ada (prn_…)`, or the bare id when the name is unknown. */
export const named = (name: string | null | undefined, id: string): string =>
  name ? `${name} (${id})` : id;

/** An instant as a person reads it at a glance: `2026-11-24 14:05:09Z` (UTC, to the second). */
export function clock(iso: string | number): string {
  const at = new Date(iso).toISOString();
  return `${at.slice(0, 10)} ${at.slice(11, 19)}Z`;
}

/** The Web UI page of a workflow (its newest run). */
export const workflowUiUrl = (uiBase: string, namespace: string, workflowId: string): string =>
  `${uiBase.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;

/** Where a workflow's static details point a person: the api resource and the console. */
export interface WorkflowLinks {
  /** The api resource (`GET` it with an API key). */
  api: string;
  /** The approvals console. */
  console: string;
}

/**
 * Static details in Markdown: a title, `label: value` lines and the links back to the api
 * and the console. Lines whose value is null are left out.
 */
export function detailsMarkdown(
  title: string,
  lines: Record<string, string | null | undefined>,
  links: WorkflowLinks,
): string {
  const body = Object.entries(lines)
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([label, value]) => `- **${label}:** ${value}`);
  // The console's page is linked and the resource to open there named beside it, so the
  // link works in any Markdown renderer (the console's fragment routes are its own).
  const [consolePage, fragment] = links.console.split('#');
  const [view, id] = (fragment ?? '').split('/').filter(Boolean);
  return [
    `### ${title}`,
    '',
    ...body,
    `- **API:** [${links.api}](${links.api})`,
    `- **Console:** [${consolePage}](${consolePage})${view && id ? `, then the ${view} ${code(id)}` : ''}`,
  ].join('\n');
}

/** `Ada Lovelace (`prn_…`)` in Markdown, or the bare id as code when the name is unknown. */
export const whoMarkdown = (name: string | null | undefined, id: string): string =>
  name ? `${mdText(name)} (${code(id)})` : code(id);

/** Current details as the Web UI shows them: `- **Label:** value` lines, null ones left out. */
export const currentDetailsMarkdown = (lines: Record<string, string | null | undefined>): string =>
  Object.entries(lines)
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([label, value]) => `- **${label}:** ${value}`)
    .join('\n');
