import type { GovernedClient } from '../client';
import { OPERATION_INPUTS } from './operation-inputs';
import { ToolRefusal } from './refusals';
import type { NameBook } from './render';

/** A JSON Schema object, as tools/list publishes a tool's input. */
export type JsonSchema = Record<string, unknown>;

/** What a tool works with during one call. */
export interface ToolContext {
  /** The service as the calling key sees it; every call is that key's own request. */
  client: GovernedClient;
  names: NameBook;
  /** Aborted when the MCP client cancels the call or goes away. */
  signal: AbortSignal;
  /** Reports progress to a client that asked for it (a no-op otherwise). */
  progress(done: number, total: number, message: string): Promise<void>;
  /** The calling key's principal id. */
  me(): Promise<string>;
  /** How long to wait between reads of an action that is still moving. */
  pollMs: { first: number; max: number };
}

/** What a tool answers: text for the model, a few fields for programs, and whether it refused. */
export interface ToolAnswer {
  text: string;
  structured?: Record<string, unknown>;
  isError?: boolean;
}

export interface GovernedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolAnswer>;
}

export type OperationId = keyof typeof OPERATION_INPUTS;

/**
 * A tool's input schema: the operation's own input from the OpenAPI document (path, query
 * and body fields), without the fields the tool sets itself, plus the tool's own fields.
 */
export function inputOf(
  operationId: OperationId,
  options: { omit?: readonly string[]; own?: Record<string, JsonSchema> } = {},
): JsonSchema {
  const input = structuredClone(OPERATION_INPUTS[operationId]) as unknown as {
    properties: Record<string, JsonSchema>;
    required: string[];
    $defs: Record<string, JsonSchema>;
  } & JsonSchema;
  for (const name of options.omit ?? []) delete input.properties[name];
  input.required = input.required.filter((name) => name in input.properties);
  Object.assign(input.properties, options.own ?? {});
  if (Object.keys(input.$defs).length === 0) delete (input as JsonSchema)['$defs'];
  return input;
}

/** The text of an input string field the service itself checks (a wrong shape is its 404 or 422). */
export const textOf = (input: Record<string, unknown>, name: string): string => {
  const value = input[name];
  if (value === undefined) throw new ToolRefusal(`${name} is required. Nothing was done.`);
  return typeof value === 'string' ? value : JSON.stringify(value);
};

/** The fields of `input` named in `names` that were given. */
export function picked(input: Record<string, unknown>, names: readonly string[]) {
  return Object.fromEntries(names.filter((n) => input[n] !== undefined).map((n) => [n, input[n]]));
}
