import type { ErrorCode, ErrorDetail } from '../errors.js';
import type { components } from '../generated/openapi.js';

type Schemas = components['schemas'];

/** Who did something: `{type, id: "<provider>:<external_id>", identityProvider}`. */
export type Actor = Schemas['Actor'];
/** A chat message, the same object the REST API answers. */
export type ChatMessage = Schemas['ChatMessage'];
/** A page of `GET /v1/rooms/:roomId/messages`. */
export type ChatMessagePage = Schemas['ChatMessagePage'];
/** One member of a room: an actor however many tabs it has open (`connections`). */
export type Member = Schemas['PresenceMember'];
/** A JSON object (presence state, message metadata). */
export type JsonObject = { [key: string]: unknown };

/** The error codes an `error` frame may carry: the API's own and those only the realtime protocol uses. */
export type RealtimeErrorCode =
  | ErrorCode
  | 'invalid_frame'
  | 'not_joined'
  | 'already_joined'
  | 'too_many_rooms'
  | 'room_full';

/** A tenant event delivered to a room (`room.updated`, `app.*`, ...). */
export interface RoomEvent {
  id: string;
  type: string;
  data: JsonObject;
  createdAt: string;
}

/** An auction's frame (`auction.created`, `auction.bid`, `auction.ended`, ...), as docs/auctions.md lists them. */
export interface AuctionFrame {
  type: string;
  room: string;
  auctionId: string;
  seq: number;
  [field: string]: unknown;
}

/** A change of a room's chat: a new message, an edit or reaction change, a deletion. */
export interface ChatFrame {
  type: 'chat.message' | 'chat.updated' | 'chat.deleted';
  room: string;
  message: ChatMessage;
  /** Absent only on the answer to a send retried with a used clientId (not a new change). */
  changeSeq?: number;
}

/**
 * A change of a room's members: one frame per change, or (the client asks for it with its joins) one
 * `presence.diff` per room per tick of the server, each actor in one of its lists, by its last change.
 */
export type PresenceFrame =
  | { type: 'presence.join' | 'presence.update'; room: string; member: Member }
  | { type: 'presence.leave'; room: string; actor: Actor }
  | { type: 'presence.diff'; room: string; joins: Member[]; updates: Member[]; leaves: Actor[] };

/** The frames the server sends, as far as the client reads them. */
export type ServerFrame =
  | {
      type: 'joined';
      room: string;
      ref?: string;
      members?: Member[];
      seq?: number;
      changeSeq?: number;
      auctions?: Record<string, number>;
    }
  | PresenceFrame
  | ChatFrame
  | { type: 'typing'; room: string; actor: Actor }
  | { type: 'event'; room: string; event: RoomEvent }
  | { type: 'error'; code: RealtimeErrorCode; message: string; ref?: string; details?: ErrorDetail[] }
  | { type: 'pong'; ref?: string };

/** A frame the client sends. */
export type ClientFrame = { type: string; ref?: string; [field: string]: unknown };

/**
 * The part of the WHATWG WebSocket the client uses: browsers', React Native's, Node 22's, and `ws`'s
 * class fit it as they are. The client only sets the handlers, so their types are left open.
 */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: unknown;
  onmessage: unknown;
  onclose: unknown;
  onerror: unknown;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;
