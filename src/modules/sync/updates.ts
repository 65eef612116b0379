import * as Y from 'yjs';
import { AppError } from '../../core/http/errors.ts';

/**
 * Whether `update` is a well-formed Yjs update: it is decoded whole and integrated into an empty document
 * (missing dependencies only wait there). A malformed update never reaches the log, where it would make
 * the document unloadable.
 */
export function isWellFormedUpdate(update: Uint8Array): boolean {
  if (update.length < 2) return false;
  try {
    Y.decodeUpdate(update);
    // A fixed guid: a random one costs 32 calls to the system's random source, per update checked.
    Y.applyUpdate(new Y.Doc({ gc: false, guid: 'check' }), update);
    return true;
  } catch {
    return false;
  }
}

export function assertWellFormedUpdate(update: Uint8Array, field: string): void {
  if (!isWellFormedUpdate(update)) {
    throw new AppError('unprocessable_content', 'the body is not a Yjs update (Y.encodeStateAsUpdate)', {
      details: [
        { field, message: 'not a decodable Yjs update (version 1 encoding)', code: 'malformed_update' },
      ],
    });
  }
}

/** Standard base64 or base64url, padded or not. */
export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replaceAll('-', '+').replaceAll('_', '/'), 'base64'));
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
