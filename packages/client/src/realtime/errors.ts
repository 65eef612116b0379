import type { ErrorDetail } from '../errors.js';
import type { RealtimeErrorCode } from './types.js';

/** Codes the client gives its own refusals (never sent by the server). */
export type ClientRefusal = 'send_queue_full' | 'closed' | 'left' | 'frame_too_large';

/**
 * A refusal: the server's `error` frame for this send or join (`code` one of the API's codes or the
 * realtime protocol's), or the client's own (`send_queue_full`, `closed`, `left`, `frame_too_large`).
 */
export class RealtimeError extends Error {
  readonly code: RealtimeErrorCode | ClientRefusal;
  readonly details: ErrorDetail[];

  constructor(code: RealtimeErrorCode | ClientRefusal, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'RealtimeError';
    this.code = code;
    this.details = details;
  }
}

export function isRealtimeError(error: unknown): error is RealtimeError {
  return error instanceof RealtimeError;
}
