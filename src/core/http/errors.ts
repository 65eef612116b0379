/**
 * The closed set of error codes the API answers with, each bound to one HTTP status.
 * Handlers throw `AppError` (or a named subclass); one error handler renders
 * `{ error, message, requestId, details? }`.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  invalid_token: 401,
  invalid_api_key: 401,
  insufficient_scope: 403,
  forbidden: 403,
  module_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable_content: 422,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  /** A service the request depends on (e.g. GitHub for mobile builds) refused or failed. */
  upstream_error: 502,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetail {
  /** JSON pointer-ish path of the offending field, e.g. `/body/metadata/color`. */
  field: string;
  message: string;
  /** Optional machine-readable reason, e.g. `blocked_word`, `too_long`. */
  code?: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
  /**
   * A 5xx the service answers by design (it is shutting down), not a fault: logged at info, not error,
   * so an operator's error alerts stay for faults.
   */
  expected?: boolean;
}

export class AppError extends Error {
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;
  readonly expected: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.expected = options.expected ?? false;
  }
}

export class InvalidRequest extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super('invalid_request', message, details === undefined ? {} : { details });
  }
}

export class NotFound extends AppError {
  constructor(resource: string, id?: string) {
    super('not_found', id === undefined ? `${resource} not found` : `${resource} ${id} not found`);
  }
}

export class Conflict extends AppError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class Forbidden extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class RateLimited extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

export class ServiceUnavailable extends AppError {
  constructor(message: string, options: { cause?: unknown; expected?: boolean } = {}) {
    super('service_unavailable', message, options);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
