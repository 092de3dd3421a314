import { Invalid } from '../../lib/errors';
import { createValidatorFactory, type InputValidator } from '../../lib/validation';
import { COMMAND_ARGS_SCHEMAS, type CommandArgs, type SessionCommand } from './schemas';

export { NOTE_MAX_CHARS, NOTE_MAX_REFS, type CommandArgs } from './schemas';

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
    // Defaults are filled into the object validated, so validate a copy of the caller's
    // (most steps send no arguments: no clone, a few µs a step).
    const value = args && Object.keys(args).length > 0 ? structuredClone(args) : {};
    const { issues } = validators[command](value);
    if (issues.length > 0) {
      throw new Invalid(
        issues.map((issue) => ({ ...issue, loc: [...ARGS_LOC, ...issue.loc.slice(1)] })),
      );
    }
    return value as CommandArgs[typeof command];
  };
}
