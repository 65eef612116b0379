import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../core/http/errors.ts';
import { type EncodedFrame, FrameRefused } from '../../core/realtime/contributions.ts';
import { errorFrame } from './frames.ts';
import { InvalidFrame } from './protocol.ts';

/** Any failure of a frame as the `error` frame the client gets; faults are logged, never shown. */
export function errorFrameFor(error: unknown, ref: string | undefined, log: FastifyBaseLogger): EncodedFrame {
  if (error instanceof InvalidFrame)
    return errorFrame('invalid_frame', error.message, error.ref, error.details);
  if (error instanceof FrameRefused) return errorFrame(error.code, error.message, ref);
  if (error instanceof AppError && error.status < 500) {
    return errorFrame(error.code, error.message, ref, error.details);
  }
  // A dependency that does not answer (Redis, the database): the client may retry, so it is told so.
  if (error instanceof AppError && error.code === 'service_unavailable') {
    if (error.expected) log.debug({ err: error }, 'realtime frame refused');
    else log.warn({ err: error }, 'realtime frame refused');
    return errorFrame(error.code, error.message, ref);
  }
  log.error({ err: error }, 'realtime frame failed');
  return errorFrame('internal_error', 'the server could not handle this frame; try again', ref);
}
