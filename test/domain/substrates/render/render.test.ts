import { render, renderJson } from '../../../../src/domain/substrates/render';
import { liveCellsGrid, pictureCells } from '../live-cells-grid';
import { renderInputFor } from './render-fixtures';

describe('render', () => {
  const input = renderInputFor(liveCellsGrid(16, 16, pictureCells(['OO', 'OO'], 3, 4)), {
    motifs: { block: 1 },
  });

  it('gives the JSON summary', () => {
    expect(renderJson(input)).toEqual({
      deployment_id: 'dep_TEST',
      tick: 12,
      stage: 'observing',
      spec: input.spec,
      manifest_sha256: 'cd'.repeat(32),
      summary: {
        population: 4,
        bounding_box: { x: 3, y: 4, width: 2, height: 2 },
        digest: 'ab'.repeat(32),
        motifs: { block: 1 },
      },
    });
    expect(renderJson({ ...input, motifs: undefined }).summary.motifs).toBeNull();
  });

  it('labels each format with its content type', () => {
    expect(render(input, 'json')).toEqual({
      content_type: 'application/json',
      content: renderJson(input),
    });
    const markdown = render(input, 'markdown');
    expect(markdown.content_type).toBe('text/markdown; charset=utf-8');
    expect(markdown.content).toEqual(expect.stringContaining('# Substrate deployment'));
    const svg = render(input, 'svg');
    expect(svg.content_type).toBe('image/svg+xml');
    expect(svg.content).toEqual(expect.stringMatching(/^<svg /));
  });
});
