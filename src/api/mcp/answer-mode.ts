import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  WebStandardStreamableHTTPServerTransport,
  type HandleRequestOptions,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The SDK transport's fields this class steers. They are private in its typings; the tests
 * of both answer modes (test/api/mcp-answer-mode.test.ts, and over `/mcp`
 * test/api/mcp-answer-modes.int.test.ts) fail if an SDK upgrade renames them or stops
 * using them as described below: check them on every upgrade of the SDK.
 */
interface TransportInternals {
  _enableJsonResponse: boolean;
  _eventStore?: unknown;
  _streamMapping: Map<string, { resolveJson?: unknown }>;
  _requestToStreamMapping: Map<RequestId, string>;
}

/** Whether a POST's messages ask for progress (`params._meta.progressToken` on one of them). */
export function asksForProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params
      ?._meta;
    return meta?.progressToken !== undefined;
  });
}

/**
 * The SDK's Streamable HTTP transport, choosing the answer's form per POST, as the protocol
 * lets a server do: a request that asked for progress (a `progressToken`) is answered as an
 * SSE stream (its notifications, then its result), every other as one JSON body, which
 * spares both sides the stream (its framing, chunks and parsing). Only the request that
 * asked for progress gets notifications related to it (the tools report progress only to a
 * token), and the server's own notifications go on the GET stream either way.
 *
 * The SDK reads its one `enableJsonResponse` flag where it opens a POST's answer and where
 * it sends a message on one; both reads run synchronously after the calls below set the
 * flag for that POST and that message (the SDK only awaits before them when a session
 * starts, which no other request of the transport can interleave, or with an event store,
 * which this transport refuses). So requests of both forms can be in flight at once.
 */
export class AnswerModeTransport extends WebStandardStreamableHTTPServerTransport {
  private get internals(): TransportInternals {
    return this as unknown as TransportInternals;
  }

  override async start(): Promise<void> {
    if (this.internals._eventStore !== undefined) {
      throw new Error('AnswerModeTransport: an event store would read the answer mode late');
    }
    await super.start();
  }

  override handleRequest(req: Request, options?: HandleRequestOptions): Promise<Response> {
    if (req.method === 'POST') {
      this.internals._enableJsonResponse = !asksForProgress(options?.parsedBody);
    }
    return super.handleRequest(req, options);
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const requestId =
      options?.relatedRequestId ??
      ('id' in message && !('method' in message) ? message.id : undefined);
    if (requestId !== undefined) {
      const { _streamMapping, _requestToStreamMapping } = this.internals;
      const streamId = _requestToStreamMapping.get(requestId);
      const answer = streamId === undefined ? undefined : _streamMapping.get(streamId);
      // A POST answered as JSON waits on `resolveJson`; a streamed one has none.
      this.internals._enableJsonResponse = answer?.resolveJson !== undefined;
    }
    return super.send(message, options);
  }
}
