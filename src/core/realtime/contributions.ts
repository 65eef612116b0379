import type { FastifyBaseLogger } from 'fastify';
import { type Static, type TObject, type TProperties, Type } from 'typebox';
import type { ActorRef, Principal } from '../auth/principal.ts';
import { ROOM_ID_PATTERN } from '../auth/room-id.ts';
import type { Clock } from '../clock.ts';
import type { TenantEvent } from '../events/types.ts';
import type { TenantAccess } from '../modules/authorize.ts';
import type { ServiceContext } from '../services.ts';
import type { JsonObject } from './json.ts';
import type { ErrorReporter } from './listeners.ts';
import type { RoomKey } from './names.ts';
import type { StreamTimings } from './ordered-stream.ts';
import type { PresenceStore } from './presence.ts';
import type { PubSub } from './pubsub.ts';
import type { SocketRoute } from './socket-routes.ts';

/*
 * What a module adds to the realtime gateway (`GET /v1/realtime`), declared in its manifest's hooks as
 * `realtime`: the client frames it handles, what it adds to `join` and `leave`, the messages it publishes
 * on a room's channel and how the room's members get them, the events it relays as its own frames, and
 * background relays. The gateway owns sockets, rooms, ordering and limits; it knows no module by name.
 */

export {
  type EncodedFrame,
  encodeFrame,
  encodeFrameParts,
  RawJson,
  withHeadroom,
} from './frame-encoding.ts';

import type { EncodedFrame } from './frame-encoding.ts';

/** The `room` field of a frame. */
export const RoomField = Type.String({ pattern: ROOM_ID_PATTERN });

/** The verified session a socket was opened with (tokens are immutable: fixed for the connection's life). */
export interface RealtimeSession {
  principal: Principal;
  tenantId: string;
  actor: ActorRef;
  /** The credential as sent, re-verified on every heartbeat so expiry and revocation close the socket. */
  token: string;
}

/** One socket, as module code sees it. */
export interface RealtimeConnection {
  readonly id: string;
  readonly session: RealtimeSession;
  readonly log: FastifyBaseLogger;
  readonly isOpen: boolean;
  readonly memberships: ReadonlyMap<string, RealtimeMembership>;
  /** The session token was minted for `module` and carries `scope` (whether the module is on is asked apart). */
  may(module: string, scope: string): boolean;
  send(frame: EncodedFrame): boolean;
  /** Resolves true once the client has read most of what it was sent, false when it closed first. */
  drained(): Promise<boolean>;
}

/**
 * One connection in one room. Until the join has caught up, live frames are held and then sent in order;
 * frames of an ordered stream (such as a room's chat changes) carry their position in it and reach the
 * connection once each, in position order, whether they came from the catch-up or live.
 */
export interface RealtimeMembership {
  readonly roomId: string;
  readonly key: RoomKey;
  readonly connection: RealtimeConnection;
  deliver(frame: EncodedFrame): void;
  deliverInOrder(stream: string, position: number, frame: EncodedFrame): void;
  /** The catch-up reached `position`; with a frame unless the client has that change already. */
  caughtUp(stream: string, position: number, frame: EncodedFrame | undefined): void;
  /** The newest position of `stream` this connection has. */
  position(stream: string): number;
  /** Where the connection stands in `stream`: where it resumes from, or 0 when the stream starts over. */
  setPosition(stream: string, position: number): void;
}

/** A room as one instance sees it: its members here. */
export interface RealtimeRoom {
  readonly tenantId: string;
  readonly roomId: string;
  readonly members: ReadonlySet<RealtimeMembership>;
}

/** A module's part of one room on one instance, from the first member here until the last leaves. */
export interface ModuleRoom {
  /** After the room's channel is subscribed: learn where the room stands. */
  open?(): Promise<void>;
  /** A message of one of the module's kinds, from the room's channel. */
  receive(kind: string, payload: JsonObject): void;
  /**
   * About how many frames handling a message of `kind` writes now, which the gateway's fan-out pacing
   * counts; without it, one per member here. (Presence: none for members that get one diff per tick.)
   */
  deliveries?(kind: string): number;
  /** Messages may have been lost (the backplane reconnected): catch up from the database. */
  catchUp?(): void;
  /** The room was deleted; one created again under its id starts from nothing. */
  reset?(): void;
  close?(): void;
}

/** What travels on a room's channel: a kind (the module's, or `event`) and JSON fields. */
export interface RoomMessage {
  k: string;
}

/** The gateway as module code sees it. */
export interface RealtimeHost {
  readonly clock: Clock;
  /** How ordered streams catch up, for modules that keep no timings of their own. */
  readonly streams: StreamTimings;
  readonly presence: PresenceStore;
  readonly pubsub: PubSub;
  readonly report: ErrorReporter;
  /** The verb context of a frame: the connection's tenant and principal, a fresh request id and trace. */
  context(connection: RealtimeConnection): ServiceContext;
  /** A verb context of the gateway itself in a tenant (no principal): reads for delivery. */
  systemContext(tenantId: string): ServiceContext;
  /** Publishes on the room's channel: every instance with a member in the room receives it. */
  publish(tenantId: string, roomId: string, message: RoomMessage): Promise<void>;
  /** The connection's membership of `roomId`, or the refusal `not_joined`. */
  membershipIn(connection: RealtimeConnection, roomId: string): RealtimeMembership;
  connections(): Iterable<RealtimeConnection>;
}

/** Codes only the realtime protocol has, besides `invalid_frame` and the API's own error codes. */
export type RealtimeErrorCode =
  | 'not_joined'
  | 'already_joined'
  | 'too_many_rooms'
  | 'room_full'
  | 'rate_limited';

/** A frame the gateway understood but will not act on. */
export class FrameRefused extends Error {
  constructor(
    readonly code: RealtimeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FrameRefused';
  }
}

/** The fields every client frame may carry: the client's reference, echoed in what the frame causes. */
export interface FrameBase {
  type: string;
  ref?: string;
}

/** A frame type a module handles. */
export interface ClientFrameHandler {
  type: string;
  /** The frame's fields besides `type` and `ref`; no others are accepted. */
  fields: TProperties;
  /**
   * What sending it needs, checked by the one authorization rule before `handle` (with the frame's `room`):
   * the module on for the tenant, the token minted for it with the scope, and reaching the room.
   */
  access: { module: string; scope: string };
  handle(host: RealtimeHost, connection: RealtimeConnection, frame: FrameBase): Promise<void>;
  /** The reference of an error this frame causes when it has no `ref` (e.g. a message's clientId). */
  errorRef?(frame: FrameBase): string | undefined;
}

/** Builds a frame handler whose `handle` gets the frame typed by its fields. */
export function defineFrame<F extends TProperties>(definition: {
  type: string;
  fields: F;
  access: { module: string; scope: string };
  handle(
    host: RealtimeHost,
    connection: RealtimeConnection,
    frame: Static<TObject<F>> & FrameBase,
  ): Promise<void>;
  errorRef?(frame: Static<TObject<F>> & FrameBase): string | undefined;
}): ClientFrameHandler {
  return definition as ClientFrameHandler;
}

/** The `join` frame as the gateway reads it; modules' join fields come typed through `defineJoin`. */
export interface JoinBase extends FrameBase {
  room: string;
}

/**
 * A module's part of entering and leaving a room. Joins run each module's `check`, then each `admit`,
 * then (subscribed to the room) each `enter`, whose fields go into the `joined` frame, then each `joined`.
 */
export interface JoinContribution {
  /** Fields the module adds to the `join` frame (all optional). */
  fields?: TProperties;
  /** Checks that need no I/O, before anything else. */
  check?(connection: RealtimeConnection, frame: JoinBase): void;
  /** Checks that need the database, before the room is entered (e.g. that the room exists). */
  admit?(ctx: ServiceContext, frame: JoinBase): Promise<void>;
  /** Enters the room; what it returns goes into the `joined` frame. */
  enter?(
    host: RealtimeHost,
    membership: RealtimeMembership,
    frame: JoinBase,
    tenant: TenantAccess,
  ): Promise<Record<string, unknown>>;
  /** After `joined` was sent, before live frames flow (e.g. the changes a resuming client missed). */
  joined?(host: RealtimeHost, membership: RealtimeMembership, tenant: TenantAccess): Promise<void>;
  /** The connection leaves the room (a `leave` frame, a failed join, or the socket closing). */
  leave?(host: RealtimeHost, membership: RealtimeMembership): Promise<void>;
}

/** Builds a join contribution whose functions get the module's join fields typed. */
export function defineJoin<F extends TProperties>(definition: {
  fields?: F;
  check?(connection: RealtimeConnection, frame: Static<TObject<F>> & JoinBase): void;
  admit?(ctx: ServiceContext, frame: Static<TObject<F>> & JoinBase): Promise<void>;
  enter?(
    host: RealtimeHost,
    membership: RealtimeMembership,
    frame: Static<TObject<F>> & JoinBase,
    tenant: TenantAccess,
  ): Promise<Record<string, unknown>>;
  joined?(host: RealtimeHost, membership: RealtimeMembership, tenant: TenantAccess): Promise<void>;
  leave?(host: RealtimeHost, membership: RealtimeMembership): Promise<void>;
}): JoinContribution {
  return definition as JoinContribution;
}

/** A module's realtime contributions (all optional). */
export interface RealtimeHooks {
  frames?: readonly ClientFrameHandler[];
  join?: JoinContribution;
  /** The kinds of room-channel messages the module publishes; `room` handles them on each instance. */
  roomMessages?: readonly string[];
  room?(host: RealtimeHost, room: RealtimeRoom): ModuleRoom;
  /**
   * A committed event of the module about a room (`data.roomId`), as the message to publish on the room's
   * channel; undefined leaves it to the gateway's `event` frame.
   */
  relay?(event: TenantEvent, roomId: string): RoomMessage | undefined;
  /** Event types that mean a room is gone: every module's part of the room starts over. */
  roomResetEvents?: readonly string[];
  /** Background relays while the gateway runs (e.g. presence expiry); returns how to stop them. */
  start?(host: RealtimeHost): (() => void)[];
  /** WebSocket routes that speak the module's own protocol, kept by the gateway (socket-routes.ts). */
  sockets?: readonly SocketRoute[];
}
