import type { RenderFormat } from '../schemas';
import type { RenderInput } from './render-input';
import { renderJson, type RenderedJson } from './render-json';
import { renderMarkdown } from './render-markdown';
import { renderSvg } from './render-svg';

/** A rendering with the content type to serve it as. */
export type Rendered =
  | { content_type: 'application/json'; content: RenderedJson }
  | { content_type: 'text/markdown; charset=utf-8'; content: string }
  | { content_type: 'image/svg+xml'; content: string };

/** One observed state in the requested format. */
export function render(input: RenderInput, format: RenderFormat): Rendered {
  switch (format) {
    case 'json':
      return { content_type: 'application/json', content: renderJson(input) };
    case 'markdown':
      return { content_type: 'text/markdown; charset=utf-8', content: renderMarkdown(input) };
    case 'svg':
      return { content_type: 'image/svg+xml', content: renderSvg(input) };
  }
}
