/**
 * `@svc/client/realtime`: rooms over one WebSocket to `/v1/realtime`, with reconnect, resume from each
 * room's last `changeSeq`, sends stored once (by `clientId`) and a bounded offline queue. docs/client.md.
 */
import { Realtime } from './realtime/client.js';
import type { RealtimeOptions } from './realtime/options.js';

export type { BackoffOptions } from './realtime/backoff.js';
export { DEFAULT_BACKOFF, reconnectDelay } from './realtime/backoff.js';
export { Realtime } from './realtime/client.js';
export { type CloseAction, closeAction, STOP_CODES } from './realtime/close-codes.js';
export { type ClientRefusal, isRealtimeError, RealtimeError } from './realtime/errors.js';
export type { PresenceChange } from './realtime/members.js';
export type { RealtimeEvents, RealtimeOptions, RealtimeStatus, StatusChange } from './realtime/options.js';
export type { Room } from './realtime/room.js';
export type { HistoryQuery, RoomEvents } from './realtime/room-types.js';
export type { SendInput } from './realtime/sends.js';
export type {
  Actor,
  AuctionFrame,
  ChatMessage,
  ChatMessagePage,
  JsonObject,
  Member,
  RealtimeErrorCode,
  RoomEvent,
  WebSocketConstructor,
  WebSocketLike,
} from './realtime/types.js';

/** Opens the shared socket (at once) and returns the client; `join` rooms on it. */
export function createRealtime(options: RealtimeOptions): Realtime {
  return new Realtime(options);
}
