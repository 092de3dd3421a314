import { escapeXml } from '../../lib/escape-xml';

/** What the world picture draws. */
export interface WorldPicture {
  objects: { object_id: string; name: string; kind: string }[];
  relationships: { from: string; to: string; kind: string }[];
}

const SIZE = 800;
const PALETTE = ['#0969da', '#1a7f37', '#9a6700', '#cf222e', '#8250df', '#bf3989', '#1b7c83'];
const svg = (width: number, height: number, body: string[]): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui,sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');

/**
 * The world as a picture: objects on a circle in id order (so the same world draws the same
 * bytes), coloured by kind, relationships as labelled lines between them.
 */
export function worldSvg(world: WorldPicture): string {
  const objects = [...world.objects].sort((a, b) => a.object_id.localeCompare(b.object_id));
  const kinds = [...new Set(objects.map((o) => o.kind))].sort();
  const radius = SIZE / 2 - 110;
  const at = new Map(
    objects.map((o, i) => {
      const angle = (2 * Math.PI * i) / Math.max(1, objects.length) - Math.PI / 2;
      const x = Math.round(SIZE / 2 + radius * Math.cos(angle));
      const y = Math.round(SIZE / 2 + radius * Math.sin(angle));
      return [o.object_id, { x, y }];
    }),
  );
  const body: string[] = ['<g stroke="#8c959f" stroke-width="1.5">'];
  const labels: string[] = [];
  for (const r of world.relationships) {
    const from = at.get(r.from);
    const to = at.get(r.to);
    if (!from || !to) continue;
    body.push(`<line x1="${from.x}" y1="${from.y}" x2="${to.x}" y2="${to.y}"/>`);
    labels.push(
      `<text x="${(from.x + to.x) / 2}" y="${(from.y + to.y) / 2}" fill="#57606a" text-anchor="middle">${escapeXml(r.kind)}</text>`,
    );
  }
  body.push('</g>', ...labels);
  for (const o of objects) {
    const { x, y } = at.get(o.object_id)!;
    const colour = PALETTE[kinds.indexOf(o.kind) % PALETTE.length];
    body.push(
      `<circle cx="${x}" cy="${y}" r="14" fill="${colour}"><title>${escapeXml(`${o.name} (${o.kind}) ${o.object_id}`)}</title></circle>`,
      `<text x="${x}" y="${y + 30}" text-anchor="middle" fill="#1b1f24">${escapeXml(o.name)}</text>`,
    );
  }
  kinds.forEach((kind, i) =>
    body.push(
      `<circle cx="20" cy="${20 + i * 20}" r="6" fill="${PALETTE[i % PALETTE.length]}"/>`,
      `<text x="32" y="${24 + i * 20}" fill="#1b1f24">${escapeXml(kind)}</text>`,
    ),
  );
  return svg(SIZE, SIZE, body);
}

/** The runtime as a card: identity, stage, and valence and arousal as bars. */
export function runtimeSvg(runtime: {
  runtime_id: string;
  stage: string;
  valence: number;
  arousal: number;
  commitments: number;
  open_tasks: number;
}): string {
  const bar = (y: number, label: string, share: number, colour: string) => [
    `<text x="20" y="${y + 13}" fill="#1b1f24">${escapeXml(label)}</text>`,
    `<rect x="140" y="${y}" width="300" height="16" fill="#eaeef2"/>`,
    `<rect x="140" y="${y}" width="${Math.round(300 * Math.max(0, Math.min(1, share)))}" height="16" fill="${colour}"/>`,
  ];
  return svg(480, 200, [
    `<text x="20" y="30" font-size="16" fill="#1b1f24">Runtime ${escapeXml(runtime.runtime_id)}</text>`,
    `<text x="20" y="55" fill="#57606a">stage: ${escapeXml(runtime.stage)} · commitments: ${runtime.commitments} · open tasks: ${runtime.open_tasks}</text>`,
    ...bar(80, `valence ${runtime.valence}`, (runtime.valence + 1) / 2, '#1a7f37'),
    ...bar(110, `arousal ${runtime.arousal}`, runtime.arousal, '#9a6700'),
  ]);
}
