export { render, type Rendered } from './render';
export { renderJson, type RenderedJson } from './render-json';
export { renderMarkdown, MARKDOWN_MAX_CELLS } from './render-markdown';
export { renderSvg, SVG_MAX_CELLS } from './render-svg';
export type { RenderInput } from './render-input';
