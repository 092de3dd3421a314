import type { Context } from 'koa';
import type { ValidationIssue } from '../../lib/errors';

/** JSON-RPC 2.0's codes for text that is not JSON, and for JSON that is no acceptable request. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * A `/mcp` body the body layer refused (malformed JSON, a repeated key, a number it would
 * change: what is 422 on the JSON API), answered as MCP's Streamable HTTP transport says a
 * server answers input it cannot accept: HTTP 400 with a JSON-RPC error and no id. An MCP
 * client reads it as the transport's error, not the API's envelope. The message names the
 * first problem's JSON path; `data.detail` is the 422's issue list, each with its path (a
 * tool's arguments are at `["body","params","arguments",…]`).
 */
export function jsonRpcRefusal(ctx: Context, issues: ValidationIssue[]): void {
  const notJson = issues.some((issue) => issue.type === 'json_invalid');
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more, in data.detail)` : '';
  ctx.status = 400;
  ctx.body = {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: notJson ? PARSE_ERROR : INVALID_REQUEST,
      message: `${notJson ? 'Parse error' : 'Invalid Request'}: ${JSON.stringify(first.loc)}: ${first.msg}${more}`,
      data: { detail: issues },
    },
  };
}
