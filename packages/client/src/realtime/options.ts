import type { BackoffOptions } from './backoff.js';
import type { Timers } from './timers.js';
import type { WebSocketConstructor } from './types.js';

export type RealtimeStatus = 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface RealtimeOptions {
  /** The service's address, `https://api.example.com` (the socket is `wss://…/v1/realtime`). */
  baseUrl: string;
  /** A session token from your backend (`POST /v1/runtime/connect`); called before every (re)connect. */
  getToken: () => string | Promise<string>;
  /** The WebSocket class: the global one by default; pass `ws`'s in Node 20. */
  WebSocket?: WebSocketConstructor;
  /** For `room.history()`: the global fetch by default. */
  fetch?: typeof fetch;
  backoff?: BackoffOptions;
  /** Randomness of the backoff (tests make it repeatable). */
  random?: () => number;
  setTimeout?: Timers['setTimeout'];
  clearTimeout?: Timers['clearTimeout'];
  now?: Timers['now'];
  /** Sends a room keeps while they wait to be stored (default 100); one more is refused with `send_queue_full`. */
  maxQueuedSends?: number;
  /** A send unanswered for this long goes out again with the same clientId (default 15,000 ms). */
  sendTimeoutMs?: number;
  /** Nothing heard for this long: a ping; for twice this long: the socket counts as dead (default 25,000 ms). */
  heartbeatMs?: number;
  /** Frames a second the client sends at most, and its burst (default 15 and 20; the server takes 20 and 40). */
  framesPerSecond?: number;
  frameBurst?: number;
}

export interface StatusChange {
  status: RealtimeStatus;
  /** The close code that caused it (a reconnect or a stop). */
  code?: number;
  reason?: string;
}

export interface RealtimeEvents {
  [name: string]: unknown;
  status: StatusChange;
  /** A reconnect is scheduled: which attempt (0 the first), after how long, after which close code. */
  reconnect: { attempt: number; delayMs: number; code: number };
  /** Something the app may want to log: `getToken` failed, an `error` frame that names no send or join. */
  error: unknown;
}
