/**
 * What the client does after the socket closed with a code (the server's close codes are in
 * docs/realtime.md; src/surfaces/realtime/close-codes.ts). A code not listed is retried: a proxy's or a
 * platform's code must not strand the app.
 */
export type CloseAction =
  /** Reconnect with backoff (and a fresh token, as always). */
  | 'retry'
  /** Reconnect, spread over the crowd window: the server sent every client away at once. */
  | 'retry-crowd'
  /** Reconnect with a fresh token; stop when the fresh one is refused as well. */
  | 'reauthenticate'
  /** Stop: status `closed` with the code and reason; reconnecting cannot fix it. */
  | 'stop';

/** Codes after which the client stops. */
export const STOP_CODES: Readonly<Record<number, string>> = {
  1002: 'protocol error',
  1003: 'unsupported data',
  1007: 'invalid frame payload',
  1008: 'policy violation',
  /** The client sent a frame over the limit (32 KiB): resending it would be refused again. */
  1009: 'frame too big',
  1010: 'missing extension',
  /** The tenant disabled every module of the token. */
  4403: 'forbidden: the modules of the token are disabled',
};

const CROWD_CODES = new Set([1001, 1012, 1013, 4429]);

export function closeAction(code: number): CloseAction {
  if (code === 4401) return 'reauthenticate';
  if (code in STOP_CODES) return 'stop';
  // 4400-4499 mirror HTTP 4xx: a deliberate refusal, except those the protocol says to retry.
  if (code >= 4400 && code < 4500 && ![4408, 4413, 4429].includes(code)) return 'stop';
  return CROWD_CODES.has(code) ? 'retry-crowd' : 'retry';
}
