import type { RealtimeError } from './errors.js';
import type { PresenceChange } from './members.js';
import type { Room } from './room.js';
import type { Timers } from './timers.js';
import type {
  Actor,
  AuctionFrame,
  ChatMessage,
  ChatMessagePage,
  ClientFrame,
  Member,
  RoomEvent,
} from './types.js';

export interface RoomEvents {
  [name: string]: unknown;
  /** Every (re)join: `resumedFrom` is the `changeSeq` it resumed after, null for a live join. */
  joined: { members: Member[]; seq: number; changeSeq: number; resumedFrom: number | null };
  message: ChatMessage;
  messageUpdated: ChatMessage;
  messageDeleted: ChatMessage;
  presence: PresenceChange;
  typing: Actor;
  event: RoomEvent;
  auction: AuctionFrame;
  /** The server no longer has every change since the last one received: reload with `history()`. */
  resync: { recovered: false; reason: string };
  /** The room refused the join for good (forbidden, not found, ...): its sends were rejected. */
  error: RealtimeError;
}

export interface HistoryQuery {
  before?: number;
  after?: number;
  limit?: number;
  cursor?: string;
}

/** What a room needs of its client. */
export interface RoomHost {
  readonly timers: Timers;
  /** Queues a frame for the socket; false while there is none. */
  send(frame: ClientFrame): boolean;
  retryDelay(attempt: number): number;
  history(roomId: string, query: HistoryQuery): Promise<ChatMessagePage>;
  forget(room: Room): void;
}

export interface RoomSettings {
  maxQueuedSends: number;
  sendTimeoutMs: number;
  newClientId(): string;
}
