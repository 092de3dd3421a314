import { clip } from '../cli/output';
import type { paths } from '../schema';
import { inputOf, picked, textOf, type GovernedTool } from './tool';

type WorldObject =
  paths['/v1/worlds/objects/{object_id}']['get']['responses'][200]['content']['application/json']['payload'];

/** One object as lines: `obj_… device "Hall lamp" v3`, then its attributes. */
function objectLines(object: WorldObject, attributesMax: number): string[] {
  return [
    `${object.object_id} ${object.kind} ${JSON.stringify(object.name)} v${object.version} (updated ${object.updated_at})`,
    `  attributes ${clip(JSON.stringify(object.attributes), attributesMax)}`,
    ...(object.external_state && Object.keys(object.external_state).length > 0
      ? [`  external   ${clip(JSON.stringify(object.external_state), attributesMax)}`]
      : []),
  ];
}

const listWorldObjects: GovernedTool = {
  name: 'list_world_objects',
  title: 'List world objects',
  description:
    'World objects (the things world.update_object actions change), in id order, optionally of one kind: id, kind, name, version and attributes. Read-only.',
  inputSchema: inputOf('worlds.objects.list', { omit: ['cursor'] }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const { data } = await context.client.GET('/v1/worlds/objects', {
      params: { query: picked(input, ['kind', 'limit']) as never },
      signal: context.signal,
    });
    const { items, next_cursor } = data!.payload;
    const lines =
      items.length === 0 ? ['no world objects'] : items.flatMap((o) => objectLines(o, 300));
    if (next_cursor) lines.push('(more: raise limit, or filter by kind)');
    return {
      text: lines.join('\n'),
      structured: { objects: items.map((o) => ({ object_id: o.object_id, name: o.name })) },
    };
  },
};

const getWorldObject: GovernedTool = {
  name: 'get_world_object',
  title: 'Read a world object',
  description:
    'One world object with all its attributes, its reconciled external state and its version: what a world.update_object proposal would change. Read-only.',
  inputSchema: inputOf('worlds.objects.get'),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, context) {
    const { data } = await context.client.GET('/v1/worlds/objects/{object_id}', {
      params: { path: { object_id: textOf(input, 'object_id') } },
      signal: context.signal,
    });
    const object = data!.payload;
    return {
      text: objectLines(object, 4000).join('\n'),
      structured: { object_id: object.object_id, version: object.version },
    };
  },
};

/** Read-only tools over the world objects actions target. */
export const WORLD_TOOLS: readonly GovernedTool[] = [listWorldObjects, getWorldObject];
