import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AppError } from '../../core/http/errors.ts';
import { CONFIRMATION_ARGUMENT } from './catalog.ts';
import type { IssuedConfirmation } from './confirmations.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The verb's result as structured content (when it is an object) and as the text block older clients read. */
export function successResult(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value ?? null) }],
    ...(isPlainObject(value) ? { structuredContent: value } : {}),
  };
}

/** What an error result says: the API's error body (`requestId` aside), plus what the code calls for. */
interface ToolErrorBody {
  error: string;
  message: string;
  [key: string]: unknown;
}

/**
 * An `isError` result: the error body as JSON in its one text block, which the model reads and a program
 * parses. Never as `structuredContent`: a tool's `structuredContent` is what its `outputSchema` describes,
 * and the v1 SDK client (with the Inspector built on it) validates it against that schema on error results
 * too, throwing -32602 instead of handing the error over. Clients that skip errors lose nothing.
 */
function toolErrorResult(body: ToolErrorBody): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** A business error (not found, conflict, invalid input, a refusal...): the model sees it and can correct course. */
export function errorResult(error: AppError): CallToolResult {
  return toolErrorResult({
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
}

export function declinedResult(tool: string): CallToolResult {
  return toolErrorResult({
    error: 'confirmation_declined',
    message: `the user did not approve ${tool}; nothing ran`,
  });
}

/** The confirmation request for clients without elicitation: a one-time token to repeat the call with. */
export function confirmationRequiredResult(
  tool: string,
  issued: IssuedConfirmation,
  previousTokenRejected: boolean,
): CallToolResult {
  const message =
    `${tool} needs a human's approval and did not run. Show the user what it will do and ask them; ` +
    `only if they approve, call ${tool} again with the same arguments plus ` +
    `"${CONFIRMATION_ARGUMENT}": "${issued.token}" (valid once, until ${issued.expiresAt}).` +
    (previousTokenRejected
      ? ' The token sent was not valid for this call (expired, used, or for other arguments).'
      : '');
  return toolErrorResult({
    error: 'confirmation_required',
    message,
    confirmationToken: issued.token,
    expiresAt: issued.expiresAt,
    argument: CONFIRMATION_ARGUMENT,
  });
}
