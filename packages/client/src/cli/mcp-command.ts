import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createGovernedMcpServer } from '../mcp/server';
import { resolveConnection, type ConnectionFlags } from './config';
import { answeringJson, requestTimeoutMs } from './http';

/**
 * `gr mcp`: the Model Context Protocol server on stdin/stdout, for an agent host that starts
 * it as a command. It calls the service with the same URL and key as every other command
 * (`--url`/`--key`, `GR_URL`/`GR_API_KEY`, the profile); stdout carries the protocol only.
 */
export function registerMcpCommand(program: Command, version: string): void {
  program
    .command('mcp')
    .description('serve the Model Context Protocol on stdio (agents propose; people decide)')
    .option('--url <url>', 'service URL (else GR_URL, else the profile)')
    .option('--key <key>', 'API key (else GR_API_KEY, else the profile)')
    .option('--profile <name>', 'profile of the config file (else GR_PROFILE, else its current)')
    .action(async (flags: ConnectionFlags) => {
      const { url, key } = resolveConnection(flags);
      const server = createGovernedMcpServer({
        baseUrl: url,
        apiKey: key,
        version,
        fetch: answeringJson(url, requestTimeoutMs(process.env)),
      });
      const closed = new Promise<void>((resolve) => {
        server.onclose = ((previous) => () => {
          previous?.();
          resolve();
        })(server.onclose);
      });
      // The host ending our stdin ends the session (and its subscriptions' reads).
      process.stdin.once('end', () => void server.close());
      await server.connect(new StdioServerTransport());
      await closed;
    });
}
