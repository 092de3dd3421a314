import { Invalid } from '../../lib/errors';
import type { JsonSchema } from '../../api/route';
import type { SessionCommand } from '../../api/routes/sessions.routes';
import { createValidatorFactory, type InputValidator } from '../../lib/validation';

/** Longest note text, in characters. */
export const NOTE_MAX_CHARS = 2000;
/** Most object references one note may carry. */
export const NOTE_MAX_REFS = 16;

/** Arguments of each command once validated (defaults filled in). */
export interface CommandArgs {
  list_objects: { kind?: string; limit: number };
  inspect_object: { object_id: string };
  observe_world: Record<string, never>;
  note: { text: string; refs: string[] };
  recall: Record<string, never>;
  summarize: Record<string, never>;
  close: Record<string, never>;
}

const objectId = (description: string): JsonSchema => ({
  type: 'string',
  pattern: '^obj_[0-9A-Za-z]{10,40}$',
  description,
});
const none: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** JSON Schema of `input_packet.args` per command (unknown fields are 422, as everywhere). */
export const COMMAND_ARGS_SCHEMAS: Record<SessionCommand, JsonSchema> = {
  list_objects: {
    type: 'object',
    properties: {
      kind: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description: 'Only objects of this kind.',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 500,
        default: 50,
        description: 'Most objects to list (1..500).',
      },
    },
    additionalProperties: false,
  },
  inspect_object: {
    type: 'object',
    properties: { object_id: objectId('World object to inspect.') },
    required: ['object_id'],
    additionalProperties: false,
  },
  observe_world: none,
  note: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: NOTE_MAX_CHARS, description: 'The note.' },
      refs: {
        type: 'array',
        items: objectId('A world object the note is about.'),
        maxItems: NOTE_MAX_REFS,
        uniqueItems: true,
        default: [],
        description: 'World objects the note is about; each must exist.',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  recall: none,
  summarize: none,
  close: none,
};

const ARGS_LOC = ['body', 'input_packet', 'args'];

/** Compiles the argument validators once. */
export function createArgsParser(): <C extends SessionCommand>(
  command: C,
  args: Record<string, unknown> | undefined,
) => CommandArgs[C] {
  const compile = createValidatorFactory();
  const validators = Object.fromEntries(
    Object.entries(COMMAND_ARGS_SCHEMAS).map(([command, schema]) => [
      command,
      compile(schema, 'body'),
    ]),
  ) as Record<SessionCommand, InputValidator>;
  return (command, args) => {
    // Defaults are filled into the object validated, so validate a copy of the caller's.
    const value = structuredClone(args ?? {});
    const { issues } = validators[command](value);
    if (issues.length > 0) {
      throw new Invalid(
        issues.map((issue) => ({ ...issue, loc: [...ARGS_LOC, ...issue.loc.slice(1)] })),
      );
    }
    return value as CommandArgs[typeof command];
  };
}
