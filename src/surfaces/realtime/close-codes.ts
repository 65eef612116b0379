/**
 * Close codes of `/v1/realtime`, part of the public protocol (docs/realtime.md). 4xxx mirror the HTTP
 * status they resemble, so clients can tell "fix your credential" from "slow down" from "reconnect".
 */
export const CLOSE = {
  /** The client left (or the server has no reason to give). */
  normal: 1000,
  /** A frame larger than the limit (sent by the WebSocket library itself). */
  tooBig: 1009,
  /** A server fault; reconnect with backoff. */
  internalError: 1011,
  /** The instance is shutting down; reconnect (another instance will take the connection). */
  restart: 1012,
  /** The session token expired or was revoked: mint a new one, then reconnect. */
  unauthorized: 4401,
  /** The tenant disabled every module the token was minted for. */
  forbidden: 4403,
  /** Nothing heard from the client (no frame, no pong) within the idle timeout. */
  idle: 4408,
  /** The client could not read fast enough: its send buffer passed the limit. Reconnect and resume. */
  slowConsumer: 4413,
  /** The client kept sending after being told to slow down. */
  rateLimited: 4429,
} as const;

export type CloseCode = (typeof CLOSE)[keyof typeof CLOSE];
