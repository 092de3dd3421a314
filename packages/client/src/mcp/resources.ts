import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { sleep } from '../retrying-fetch';
import type { Action } from '../cli/types';
import { FINAL_ACTION_STATUSES } from '../require-approval';
import { readAction } from './action-read';
import { refusalText } from './refusals';
import { actionText } from './render';
import type { ToolContext } from './tool';

/** An action as a resource: `governed://actions/act_…`. */
export const ACTION_URI_TEMPLATE = 'governed://actions/{action_id}';
const ACTION_URI = /^governed:\/\/actions\/([^/?#]+)$/;
export const actionUri = (id: string): string => `governed://actions/${id}`;

/** What a subscriber is told about: a new status, approval or decision. */
const changeKey = (a: Action) => `${a.status} ${a.approvals.length} ${a.decisions.length}`;

function actionIdOf(uri: string): string {
  const id = ACTION_URI.exec(uri)?.[1];
  if (!id) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `no resource ${uri}: actions are governed://actions/{action_id}`,
    );
  }
  return decodeURIComponent(id);
}

/**
 * The action resources on `server`: read one, list the caller's recent ones, and subscribe
 * to one, after which `notifications/resources/updated` announces each change of its status
 * (or its approvals) until it ends. A subscription is this session's: it reads the action
 * every `watchMs` with the caller's key, and stops when the session closes.
 */
export function serveActionResources(
  server: Server,
  context: () => ToolContext,
  watchMs: number,
): { stop(): void } {
  const watches = new Map<string, AbortController>();
  /** A handler whose failures reach the client as the refusal's words, never a stack. */
  const worded =
    <Q, R>(run: (request: Q) => Promise<R>) =>
    async (request: Q): Promise<R> => {
      try {
        return await run(request);
      } catch (error) {
        throw error instanceof McpError
          ? error
          : new McpError(ErrorCode.InvalidRequest, refusalText(error));
      }
    };

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: ACTION_URI_TEMPLATE,
        name: 'action',
        title: 'An approval-gated action',
        description:
          'An action this key may read: its plan, status, approvals and window. Subscribe to be told when its status changes.',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(
    ListResourcesRequestSchema,
    worded(async () => {
      const ctx = context();
      const { data } = await ctx.client.GET('/v1/external-actions', {
        params: { query: { proposed_by: await ctx.me(), limit: 20 } },
      });
      return {
        resources: data!.payload.items.map((a) => ({
          uri: actionUri(a.action_id),
          name: a.action_id,
          title: `${a.action_kind} ${a.status}: ${a.diff_summary ?? a.reason ?? ''}`.trim(),
          mimeType: 'text/plain',
        })),
      };
    }),
  );

  server.setRequestHandler(
    ReadResourceRequestSchema,
    worded(async (request: { params: { uri: string } }) => {
      const { uri } = request.params;
      const ctx = context();
      const action = await readAction(ctx, actionIdOf(uri));
      return {
        contents: [
          { uri, mimeType: 'text/plain', text: await actionText(ctx.names, action) },
          { uri, mimeType: 'application/json', text: JSON.stringify(action) },
        ],
      };
    }),
  );

  server.setRequestHandler(
    SubscribeRequestSchema,
    worded(async (request: { params: { uri: string } }) => {
      const { uri } = request.params;
      const ctx = context();
      const first = await readAction(ctx, actionIdOf(uri));
      if (!watches.has(uri)) {
        const controller = new AbortController();
        watches.set(uri, controller);
        void watch(server, ctx, first, controller.signal, watchMs).finally(() => {
          if (watches.get(uri) === controller) watches.delete(uri);
        });
      }
      return {};
    }),
  );

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    watches.get(request.params.uri)?.abort();
    watches.delete(request.params.uri);
    return {};
  });

  return {
    stop() {
      for (const controller of watches.values()) controller.abort();
      watches.clear();
    },
  };
}

/** Reads the action until it ends or the watch is stopped, announcing each change. */
async function watch(
  server: Server,
  context: ToolContext,
  first: Action,
  signal: AbortSignal,
  watchMs: number,
): Promise<void> {
  let seen = changeKey(first);
  let action = first;
  try {
    while (!FINAL_ACTION_STATUSES.has(action.status)) {
      await sleep(watchMs, signal);
      action = await readAction({ ...context, signal }, first.action_id);
      if (changeKey(action) === seen) continue;
      seen = changeKey(action);
      await server.sendResourceUpdated({ uri: actionUri(first.action_id) });
    }
  } catch {
    // Stopped, or the session or the service went away: a subscriber reads the resource
    // again to see where it stands.
  }
}
