import type { components } from './generated/openapi.js';

/** The one error body every route answers with: `{ error, message, requestId, details? }`. */
export type ErrorBody = components['schemas']['ErrorResponse'];
/** The closed set of the API's error codes (docs/errors.md), as the OpenAPI document lists them. */
export type ErrorCode = ErrorBody['error'];
/** One field problem of an `invalid_request`: where (`/body/name`), what, and a machine-readable reason. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/**
 * An answer that is not the service's error body (a proxy's HTML page, an empty 502): the client names it
 * with a code of its own rather than guess one of the API's.
 */
export type UnexpectedResponse = 'unexpected_response';

function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: unknown }).error === 'string' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}

/** Thrown for an answer that is not 2xx when the client was made with `throwOnError: true` (and by `paginate`). */
export class SvcError extends Error {
  readonly status: number;
  readonly error: ErrorCode | UnexpectedResponse;
  readonly requestId: string | undefined;
  readonly details: ErrorDetail[];
  /** The body as answered: the parsed error body, or the text of an unexpected one. */
  readonly body: unknown;
  readonly response: Response;

  constructor(body: unknown, response: Response) {
    const known = isErrorBody(body) ? body : undefined;
    super(known?.message ?? `${response.status} ${response.statusText || 'unexpected response'}`.trim());
    this.name = 'SvcError';
    this.status = response.status;
    this.error = known?.error ?? 'unexpected_response';
    this.requestId = known?.requestId ?? response.headers.get('x-request-id') ?? undefined;
    this.details = known?.details ?? [];
    this.body = body;
    this.response = response;
  }
}

export function isSvcError(error: unknown): error is SvcError {
  return error instanceof SvcError;
}
