import { Server } from '@modelcontextprotocol/server';
import { callTool, type ToolCallScope } from './call-tool.ts';
import { toolOf } from './catalog.ts';
import { SERVER_INFO, SERVER_INSTRUCTIONS } from './info.ts';

/**
 * One SDK server for one HTTP exchange and one caller. The low-level `Server` rather than `McpServer`:
 * the tool list is worked out per caller from the registry's JSON Schemas at request time, where
 * `McpServer` wants every tool registered up front with a Standard Schema.
 */
export function buildMcpServer(scope: ToolCallScope): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: SERVER_INSTRUCTIONS,
  });
  server.setRequestHandler('tools/list', async () => {
    const tools = await scope.caller.tools();
    return { tools: tools.map((t) => toolOf(t.action, t.mode === 'confirm')) };
  });
  server.setRequestHandler('tools/call', async (request, ctx) => callTool(scope, request.params, ctx));
  return server;
}
