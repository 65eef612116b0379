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

/** A business error (not found, conflict, invalid input...): the model sees it and can correct course. */
export function errorResult(error: AppError): CallToolResult {
  const body = {
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    structuredContent: body,
  };
}

export function declinedResult(tool: string): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `confirmation_declined: the user did not approve ${tool}; nothing ran` }],
    structuredContent: {
      error: 'confirmation_declined',
      message: `the user did not approve ${tool}; nothing ran`,
    },
  };
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
  return {
    isError: true,
    content: [{ type: 'text', text: `confirmation_required: ${message}` }],
    structuredContent: {
      error: 'confirmation_required',
      message,
      confirmationToken: issued.token,
      expiresAt: issued.expiresAt,
      argument: CONFIRMATION_ARGUMENT,
    },
  };
}
