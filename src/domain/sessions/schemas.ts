/**
 * Sessions: the vocabulary, the schemas of create and step bodies and of each command's
 * arguments, and the views (docs/sessions.md). Types are derived from the schemas.
 */
import { Type, type Static } from '@sinclair/typebox';
import * as schema from '../../lib/schema';

/** Continuity modes of a session (docs/sessions.md). */
export const CONTINUITY_MODES = ['preserve', 'fresh'] as const;
export type ContinuityMode = (typeof CONTINUITY_MODES)[number];

/** Commands a step can run (`input_packet.command`); docs/sessions.md describes each. */
export const SESSION_COMMANDS = [
  'list_objects',
  'inspect_object',
  'observe_world',
  'note',
  'recall',
  'summarize',
  'close',
] as const;
export type SessionCommand = (typeof SESSION_COMMANDS)[number];

/** Body of `POST /v1/sessions`: every field optional, the object itself required. */
export const sessionCreateBody = schema.closedObject({
  continuity_mode: schema.choice(
    CONTINUITY_MODES,
    '`preserve` keeps identity and memory across steps; `fresh` starts every step anew.',
    'preserve',
  ),
  shared_context_id: schema.contextRef('Shared context this session works in (optional).'),
});
export type SessionCreateRequest = Static<typeof sessionCreateBody>;

/** Longest note text, in characters. */
export const NOTE_MAX_CHARS = 2000;
/** Most object references one note may carry. */
export const NOTE_MAX_REFS = 16;

const objectId = (description: string) => schema.prefixedId('obj', description);
const none = schema.closedObject({});

/** Schema of `input_packet.args` per command (unknown fields are 422, as everywhere). */
export const COMMAND_ARGS_SCHEMAS = {
  list_objects: schema.closedObject({
    kind: schema.text('Only objects of this kind.', 64),
    limit: schema.integer('Most objects to list (1..500).', 1, 500, 50),
  }),
  inspect_object: schema.closedObject({ object_id: objectId('World object to inspect.') }, [
    'object_id',
  ]),
  observe_world: none,
  note: schema.closedObject(
    {
      text: schema.text('The note.', NOTE_MAX_CHARS),
      refs: Type.Array(objectId('A world object the note is about.'), {
        maxItems: NOTE_MAX_REFS,
        uniqueItems: true,
        default: [],
        description: 'World objects the note is about; each must exist.',
      }),
    },
    ['text'],
  ),
  recall: none,
  summarize: none,
  close: none,
} satisfies Record<SessionCommand, unknown>;

/** `args` as `command` takes them: required when the command has a required argument. */
const argsOf = (args: { required?: string[] }) => ({
  ...(args.required?.length ? { required: ['args'] } : {}),
  properties: { args },
});

/** `input_packet.command` is `command`: the condition of its arguments' schema. */
const commandIs = (command: SessionCommand) => ({
  properties: { command: { const: command } },
  required: ['command'],
});

/**
 * Body of `POST /v1/sessions/{session_id}/step`. Each command's arguments are stated in
 * the schema too, so the document shows what `args` each takes; the 422s are the
 * usual ones at `input_packet.args.<field>`, as the command's own parser gives them.
 */
export const sessionStepBody = schema.closedObject(
  {
    input_packet: schema.withRules(
      schema.closedObject(
        {
          command: schema.choice(
            SESSION_COMMANDS,
            'Command to run: `list_objects {kind?, limit?}`, `inspect_object {object_id}`, `observe_world {}`, `note {text, refs?}`, `recall {}`, `summarize {}` or `close {}`. Any other is 422 naming these.',
          ),
          args: schema.storedObject('Command arguments, e.g. `{"kind": "service"}`.', 64),
        },
        ['command'],
        'The command of this step and its arguments.',
      ),
      SESSION_COMMANDS.map((command) =>
        schema.shapedWhen(
          commandIs(command),
          argsOf(COMMAND_ARGS_SCHEMAS[command]),
          `the arguments of ${command}`,
        ),
      ),
    ),
  },
  ['input_packet'],
);
export type SessionStepRequest = Static<typeof sessionStepBody>;

/** Arguments of each command once validated (defaults filled in). */
export type CommandArgs = {
  [C in SessionCommand]: Static<(typeof COMMAND_ARGS_SCHEMAS)[C]>;
} & {
  list_objects: { limit: number };
  note: { refs: string[] };
};

/** A session. */
export const sessionView = schema.view(
  {
    session_id: schema.prefixedId('ses', 'Session id.'),
    created_at: schema.dateTime('When the session was created.'),
    continuity_mode: schema.choice(
      CONTINUITY_MODES,
      'How the session carries memory across steps.',
    ),
    state: schema.choice(['active', 'closed'], 'Session state.'),
    step_count: schema.count('Steps taken so far.'),
    shared_context_id: schema.contextRef('Shared context the session belongs to, when named.'),
    last_step_at: schema.nullable(
      schema.dateTime('When the newest step was taken; null before the first.'),
    ),
  },
  ['session_id', 'created_at', 'continuity_mode', 'state', 'step_count'],
  'A communicative session.',
);

/** The result of one step. */
export const stepResultView = schema.view(
  {
    session_id: schema.prefixedId('ses', 'Session id.'),
    step: schema.count('Number of this step (1 for the first).'),
    command: schema.text('Command that ran.', 64),
    output: schema.freeObject('Command output.'),
    state: schema.choice(['active', 'closed'], 'Session state after this step.'),
    at: schema.dateTime('When the step was taken.'),
    continuity: schema.view(
      {
        identity_stable: schema.flag('True when identity carried over (`preserve` mode).'),
        identity_digest: schema.text(
          'Identity the step ran under: the session identity in `preserve` mode (the same every step), a new digest each step in `fresh` mode.',
          128,
        ),
        steps: schema.count('Steps taken so far, this one included.'),
        continuity_mode: schema.choice(CONTINUITY_MODES, 'Continuity mode of the session.'),
        memory_digest: schema.nullable(
          schema.text('Hash chain over the notes carried (`preserve`); null in `fresh`.', 128),
        ),
      },
      ['identity_stable'],
      'Continuity of the session after this step.',
    ),
  },
  ['session_id', 'step', 'command', 'output', 'continuity'],
);
