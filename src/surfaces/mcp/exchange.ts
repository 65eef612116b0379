import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { ToolCallScope } from './call-tool.ts';
import { buildMcpServer } from './server.ts';

/**
 * The MCP SDK's side of `POST /mcp` (see transport.ts). Loaded on the first MCP request, not at start:
 * the SDK and its schema library are ~15 MiB and ~100 ms of a start that most runs never use.
 */
export function mcpExchange(log: FastifyBaseLogger) {
  // The modern handler is built once; it finds each exchange's caller by the Request it is handed.
  const scopes = new WeakMap<Request, ToolCallScope>();
  const modern = createMcpHandler(
    ({ requestInfo }) => {
      const scope = requestInfo === undefined ? undefined : scopes.get(requestInfo);
      if (scope === undefined) throw new Error('MCP exchange without a caller');
      return buildMcpServer(scope);
    },
    { legacy: 'reject', responseMode: 'auto', onerror: (err) => log.debug({ err }, 'MCP exchange') },
  );
  return {
    /** One JSON-RPC message of `scope`'s caller, answered. */
    async answer(web: Request, options: { parsedBody?: unknown }, scope: ToolCallScope): Promise<Response> {
      if (await isLegacyRequest(web, options.parsedBody)) {
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        const server = buildMcpServer(scope);
        await server.connect(transport);
        try {
          return await transport.handleRequest(web, options);
        } finally {
          await server.close();
        }
      }
      scopes.set(web, scope);
      return modern.fetch(web, options);
    },
    close: () => modern.close(),
  };
}
