import { Type } from '@sinclair/typebox';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { NotFound, Unavailable } from '../../lib/errors';
import { ApiError } from '../errors';
import { defineRoute, type HttpMethod, type RouteDefinition, type RouteRequest } from '../route';
import { inProcessFetch } from './in-process-fetch';
import { jsonRpcRefusal } from './refusal';
import { exchange } from './web-exchange';
import { MAX_MCP_SESSIONS, McpSessions } from './sessions';

/** The path of the Streamable HTTP transport. */
export const MCP_PATH = '/mcp';

/**
 * The Model Context Protocol over Streamable HTTP (docs/agents.md): POST carries the
 * client's JSON-RPC messages (answered as JSON or an SSE stream), GET opens the stream of
 * the server's own notifications (resource updates), DELETE ends the session.
 *
 * Mounted by the route table like every route: the key is authenticated, its family checked
 * and its rate and quota counted on each of these requests. The family is `principals_self`
 * (any valid key): a session only carries the key's own API requests, each of which passes
 * its own route's family, limits and quota again, so a sandbox key's session can read what
 * a sandbox key reads and its `propose_action` is refused as its POST would be. Hidden from
 * the OpenAPI document, which describes the JSON API; the MCP tools are listed by the
 * protocol itself (`tools/list`) and derive their inputs from the document.
 */
export function mcpRoutes(sessions = new McpSessions()): RouteDefinition[] {
  const route = (method: HttpMethod, summary: string, body: boolean) =>
    defineRoute({
      operationId: `mcp.${method.toLowerCase()}`,
      method,
      path: MCP_PATH,
      family: 'principals_self',
      summary,
      hidden: true,
      ...(body
        ? {
            request: {
              body: {
                name: 'McpMessage',
                schema: Type.Unknown(),
                stored: false,
                refused: jsonRpcRefusal,
              },
            },
          }
        : {}),
      responses: { 200: { description: 'Answered by the MCP transport.' } },
      handler: (req) => serve(sessions, req),
    });
  return [
    route('POST', 'MCP messages (Streamable HTTP)', true),
    route('GET', "MCP server's notification stream", false),
    route('DELETE', 'end an MCP session', false),
  ];
}

async function serve(sessions: McpSessions, req: RouteRequest) {
  const { ctx } = req;
  const auth = req.auth!;
  const id = ctx.get('Mcp-Session-Id');
  let session = id ? sessions.find(id, auth.keyId) : undefined;
  if (id && !session) {
    // The protocol's answer to a session the server does not know: start a new one.
    throw new NotFound(`MCP session ${id} not found on this server: send initialize again`);
  }
  if (!session) {
    if (ctx.method !== 'POST' || !isInitializeRequest(req.body)) {
      throw new ApiError(
        'validation_error',
        'no Mcp-Session-Id: a session starts with an initialize request (POST /mcp)',
      );
    }
    if (sessions.size >= MAX_MCP_SESSIONS) {
      throw new Unavailable('too many MCP sessions open on this api process', {
        retryAfterSeconds: 60,
      });
    }
    session = await sessions.start({
      apiKey: ctx.get('X-API-Key'),
      keyId: auth.keyId,
      fetch: inProcessFetch(ctx.app, ctx.ip),
    });
  }
  const { transport } = session;
  await exchange(ctx, (request) => transport.handleRequest(request, { parsedBody: req.body }));
  return { answered: true };
}
