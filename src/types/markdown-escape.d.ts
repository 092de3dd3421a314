declare module 'markdown-escape' {
  /** Backslash-escapes Markdown control characters (and `<`, `>` as entities). */
  export default function markdownEscape(text: string, skips?: string[]): string;
}
