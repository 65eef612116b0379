import {
  type CallToolRequestParams,
  type CallToolResult,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { isAppError } from '../../core/http/errors.ts';
import { validated } from '../../core/modules/validate.ts';
import type { CallableTool, McpCaller } from './caller.ts';
import { CONFIRMATION_ARGUMENT } from './catalog.ts';
import { confirmationGate } from './confirmation-gate.ts';
import { errorResult, successResult } from './results.ts';

export interface ToolCallScope {
  services: Services;
  request: FastifyRequest;
  caller: McpCaller;
}

/**
 * `tools/call`: the same verb as the REST route and `/v1/actions`, with origin `mcp` in the events'
 * trace. A tool no module offers is a protocol error; a tool this caller may not use (and is not listed
 * for them) is an `isError` result saying why, like everything the verb refuses.
 */
export async function callTool(
  scope: ToolCallScope,
  params: CallToolRequestParams,
  mcp: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const tool = await scope.caller.tool(params.name);
  if (tool === undefined) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  }
  if (isAppError(tool)) return errorResult(tool);
  const { [CONFIRMATION_ARGUMENT]: token, ...args } = params.arguments ?? {};
  let input: unknown;
  try {
    input = validated(tool.action.input, args, 'arguments');
  } catch (error) {
    if (isAppError(error)) return errorResult(error);
    throw error;
  }
  const roomRefusal = await scope.caller.roomRefusal(tool, input);
  if (roomRefusal !== undefined) return errorResult(roomRefusal);
  if (tool.mode === 'confirm') {
    const gate = await confirmationGate({
      services: scope.services,
      caller: scope.caller,
      tool,
      input,
      token: typeof token === 'string' ? token : undefined,
      mcp,
    });
    if (gate !== 'approved') return gate;
  }
  return run(scope, tool, input);
}

async function run(scope: ToolCallScope, tool: CallableTool, input: unknown): Promise<CallToolResult> {
  const { request, services } = scope;
  try {
    return successResult(await tool.action.run(requestContext(request, services, 'mcp'), input));
  } catch (error) {
    if (isAppError(error) && error.code !== 'internal_error') {
      if (error.status >= 500) request.log.error({ err: error, tool: tool.action.name }, 'MCP tool failed');
      return errorResult(error);
    }
    // A fault of ours, not the caller's: logged here, and nothing internal goes on the wire.
    request.log.error({ err: error, tool: tool.action.name }, 'MCP tool failed');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'internal error', { requestId: request.id });
  }
}
