/** Longest value a report table shows before cutting it (an RLE pattern can be long). */
const MAX_CELL_LENGTH = 80;

/** Text safe inside a Markdown table cell: one line, pipes escaped, long values cut. */
export function markdownCell(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  const short =
    oneLine.length > MAX_CELL_LENGTH ? `${oneLine.slice(0, MAX_CELL_LENGTH - 1)}…` : oneLine;
  return short.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/** Text as an inline code span (so ids with `_` or `*` are not read as emphasis). */
export function codeSpan(text: string): string {
  // A backtick would end the span early; ids and digests never hold one anyway.
  return `\`${text.replace(/`/g, "'")}\``;
}
