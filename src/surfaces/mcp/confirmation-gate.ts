import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Services } from '../../core/context.ts';
import type { CallableTool, McpCaller } from './caller.ts';
import { type ConfirmationBinding, consumeConfirmation, issueConfirmation } from './confirmations.ts';
import { confirmationRequiredResult, declinedResult } from './results.ts';

const CONFIRM_INPUT = 'confirm';
const CONFIRM_FIELD = 'approve';

/**
 * Whether this request's client can ask its user a form question. Only 2026-07-28 requests say so
 * (per request, in `_meta`): a stateless 2025-era exchange cannot carry a server-to-client request.
 */
function clientCanElicit(mcp: ServerContext): boolean {
  const envelope = mcp.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  const elicitation = capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  // `{}` means form mode (the spec's backwards-compatible reading); otherwise form must be named.
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

function question(tool: CallableTool, input: unknown) {
  return inputRequired.elicit({
    message: `Allow "${tool.action.title}" (${tool.action.name}) with ${JSON.stringify(input)}? ${tool.action.description}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [CONFIRM_FIELD]: { type: 'boolean', title: 'Approve', description: 'Run this tool call now' },
      },
      required: [CONFIRM_FIELD],
    },
  });
}

export interface GateInput {
  services: Services;
  caller: McpCaller;
  tool: CallableTool;
  input: unknown;
  /** `_confirmationToken` as the caller sent it. */
  token: string | undefined;
  mcp: ServerContext;
}

/**
 * A tool that needs a human runs only with a fresh approval: a one-time token bound to this tenant,
 * caller, tool and arguments, presented either as the echoed `requestState` of an elicitation the user
 * accepted, or as `_confirmationToken` on a repeated call. Anything else asks (again) and runs nothing.
 */
export async function confirmationGate(
  gate: GateInput,
): Promise<'approved' | CallToolResult | InputRequiredResult> {
  const { services, caller, tool, input, token, mcp } = gate;
  const binding: ConfirmationBinding = {
    tenantId: caller.tenantId,
    subject: caller.confirmationSubject,
    tool: tool.action.name,
    arguments: input,
  };
  const { db, clock } = services;
  if (token !== undefined && (await consumeConfirmation(db, token, binding, clock.now()))) return 'approved';

  const state = mcp.mcpReq.requestState<unknown>();
  if (typeof state === 'string' && (await consumeConfirmation(db, state, binding, clock.now()))) {
    const answer = inputResponse(mcp.mcpReq.inputResponses, CONFIRM_INPUT);
    const approved =
      answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.[CONFIRM_FIELD] === true;
    return approved ? 'approved' : declinedResult(tool.action.name);
  }

  const issued = await issueConfirmation(db, binding, clock.now());
  if (clientCanElicit(mcp)) {
    return inputRequired({
      inputRequests: { [CONFIRM_INPUT]: question(tool, input) },
      requestState: issued.token,
    });
  }
  return confirmationRequiredResult(tool.action.name, issued, token !== undefined || state !== undefined);
}
