import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { Identity } from '../../core/auth/identity.ts';
import type { Clock } from '../../core/clock.ts';
import type { ServiceContext, Services } from '../../core/context.ts';
import { type AccessRequest, accessRefusal, tenantAccess } from '../../core/modules/authorize.ts';
import type { InstalledHooks } from '../../core/modules/hooks.ts';
import type {
  JoinContribution,
  RealtimeConnection,
  RealtimeHost,
  RealtimeMembership,
  RoomMessage,
} from '../../core/realtime/contributions.ts';
import {
  type JsonObject,
  type PresenceStore,
  type PubSub,
  type RealtimeBackplane,
  roomChannel,
} from '../../core/realtime/index.ts';
import { DEFAULT_STREAM_TIMINGS } from '../../core/realtime/ordered-stream.ts';
import { holderOf } from '../../core/realtime/socket-routes.ts';
import { CLOSE } from './close-codes.ts';
import { Connection } from './connection.ts';
import { closeInBatches } from './drain.ts';
import { FanOutPacer } from './fan-out-pacer.ts';
import { membershipIn } from './handlers/room-checks.ts';
import type { GatewayLimits } from './limits.ts';
import { roomModulesOf } from './local-room.ts';
import { LocalRooms } from './local-rooms.ts';
import type { RoomMembership } from './membership.ts';
import { Protocol } from './protocol.ts';
import { type RawRoute, rawRoutesOf } from './raw-route.ts';
import { realtimeContext } from './realtime-context.ts';
import { openSession } from './session.ts';
import { SocketCaps } from './socket-caps.ts';
import { SocketGuard } from './socket-guard.ts';
import { releaseUpgrade } from './upgrade.ts';
import { WriteCoalescer } from './wire.ts';

/** Handles a frame a client sent (handlers/dispatch.ts). */
export type FrameHandler = (
  gateway: Gateway,
  connection: Connection,
  data: RawData,
  isBinary: boolean,
) => void;

export interface GatewayDeps {
  services: Services;
  identity: Identity;
  backplane: RealtimeBackplane;
  /** Every module's hooks; the gateway uses their `realtime` parts. */
  modules: readonly InstalledHooks[];
  limits: GatewayLimits;
  log: FastifyBaseLogger;
  /** What a client's frame does (handleFrame). */
  frames: FrameHandler;
  /** What flows into the rooms besides client frames (startRelays); returns how to stop it. */
  relays: (gateway: Gateway) => (() => void)[];
}

/**
 * The `/v1/realtime` gateway of one instance: its sockets, the rooms they are in, and the relays between
 * the event bus, the backplane and the sockets; and the modules' raw socket routes (sync), whose
 * connections it keeps as it keeps its own. State shared with other instances lives in the backplane.
 */
export class Gateway implements RealtimeHost {
  readonly rooms: LocalRooms;
  readonly services: Services;
  readonly backplane: RealtimeBackplane;
  readonly presence: PresenceStore;
  readonly pubsub: PubSub;
  readonly modules: readonly InstalledHooks[];
  readonly limits: GatewayLimits;
  readonly streams = DEFAULT_STREAM_TIMINGS;
  readonly clock: Clock;
  /** The frames clients may send, the modules' included. */
  readonly protocol: Protocol;
  /** What each module adds to joining and leaving a room, in module order. */
  readonly joins: readonly JoinContribution[];
  /** Spreads room fan-out and `joined` frames over turns of the event loop. */
  readonly pacer: FanOutPacer;
  private readonly cleanups = new Set<Promise<void>>();
  private readonly stops: (() => void)[] = [];
  /** Pings, expiry, revocations and access checks of the `/v1/realtime` sockets. */
  private readonly guard: SocketGuard<Connection>;
  private readonly caps: SocketCaps;
  private readonly coalescer = new WriteCoalescer();
  /** The modules' raw socket routes. */
  readonly socketRoutes: readonly RawRoute[];
  /** Set once the drain began: new connections are refused with 1012 from then on. */
  private draining: Promise<void> | undefined;
  private shut = false;

  constructor(private readonly deps: GatewayDeps) {
    this.services = deps.services;
    this.backplane = deps.backplane;
    this.presence = deps.backplane.presence;
    this.pubsub = deps.backplane.pubsub;
    this.modules = deps.modules;
    this.limits = deps.limits;
    this.clock = deps.services.clock;
    const guarding = {
      identity: deps.identity,
      enablement: deps.services.enablement,
      clock: this.clock,
      report: this.report,
    };
    this.guard = new SocketGuard({
      ...guarding,
      pingIntervalMs: deps.limits.heartbeatMs,
      accessCheckIntervalMs: deps.limits.heartbeatMs,
    });
    this.pacer = new FanOutPacer(deps.limits.fanOutPerTurn);
    this.caps = new SocketCaps(deps.limits, { label: 'realtime', instanceFull: 429 });
    this.socketRoutes = rawRoutesOf(deps.modules, {
      ...guarding,
      log: deps.log,
      closeGraceMs: deps.limits.closeGraceMs,
      closing: () => this.closing,
      metrics: deps.services.metrics,
    });
    this.protocol = new Protocol(deps.modules);
    this.joins = deps.modules.flatMap(({ hooks }) => hooks.realtime?.join ?? []);
    this.rooms = new LocalRooms({
      host: this,
      pubsub: deps.backplane.pubsub,
      modules: roomModulesOf(deps.modules, (type) => deps.services.registry.moduleOfEvent(type)),
      report: this.report,
      pacer: this.pacer,
    });
  }

  private get closing(): boolean {
    return this.draining !== undefined;
  }

  /** The `/v1/realtime` connections of this instance. */
  get open(): ReadonlySet<Connection> {
    return this.guard.open;
  }

  connections(): Iterable<Connection> {
    return this.open;
  }

  /** The one authorization rule, for a frame of this connection. */
  async authorize(connection: RealtimeConnection, request: AccessRequest): Promise<void> {
    const { principal, tenantId } = connection.session;
    const refusal = accessRefusal(principal, request, await tenantAccess(this.services, tenantId, false));
    if (refusal !== undefined) throw refusal;
  }

  membershipIn(connection: RealtimeConnection, roomId: string): RealtimeMembership {
    return membershipIn(connection, roomId);
  }

  readonly report = (error: unknown, context: string): void => {
    this.deps.log.error({ err: error }, context);
  };

  start(): void {
    this.stops.push(...this.deps.relays(this));
    this.guard.start();
    for (const route of this.socketRoutes) route.start();
  }

  /**
   * Whether the connection's token is still good (not expired, not revoked): checked before every frame
   * and whenever sessions are revoked. A token that is not closes the connection with 4401.
   */
  checkSession(connection: Connection): Promise<boolean> {
    return this.guard.stillAuthorized(connection);
  }

  /**
   * Before an upgrade: refuses it with HTTP 429 when this instance, or the actor on it, already holds as
   * many connections as allowed. The slot is held as long as the TCP connection, so it is given back
   * however that ends: a failed handshake, the client leaving, or a close by the server.
   */
  admit(request: FastifyRequest): void {
    const principal = request.principal;
    // Not an actor's session: `accept` closes it at once (4401), so it needs no slot.
    if (principal?.kind !== 'session' || principal.tenantId === undefined) return;
    const slot = this.caps.take(principal.tenantId, holderOf(principal));
    const socket = request.raw.socket;
    if (socket.closed) slot();
    else socket.once('close', slot);
  }

  accept(socket: WebSocket, request: FastifyRequest): void {
    const session = openSession(request);
    if (session === undefined) {
      socket.close(CLOSE.unauthorized, 'a session token is required');
      return;
    }
    const connection = new Connection(
      socket,
      session,
      request.log,
      this.limits,
      this.clock,
      this.coalescer,
      this.services.metrics?.sockets.realtime,
    );
    if (this.closing) {
      connection.close(CLOSE.restart, 'server restarting');
      return;
    }
    releaseUpgrade(socket, request, this.limits.closeGraceMs);
    this.guard.add(connection);
    socket.on('message', (data, isBinary) => this.deps.frames(this, connection, data, isBinary));
    socket.on('pong', () => {
      connection.lastHeardAt = this.clock.now();
    });
    socket.on('close', () => this.closed(connection));
  }

  /** The verb context of a frame: the connection's tenant and principal, a fresh request id and trace. */
  context(connection: RealtimeConnection): ServiceContext {
    const { tenantId, principal } = connection.session;
    return realtimeContext(this.services, connection.log, tenantId, principal);
  }

  async publish(tenantId: string, roomId: string, message: RoomMessage): Promise<void> {
    // Modules build their messages from JSON values only (the backplane carries JSON objects).
    await this.backplane.pubsub.publish(roomChannel(tenantId, roomId), message as unknown as JsonObject);
  }

  /** Takes a connection out of a room: unsubscribes it, then each module's part of the room is left. */
  async leave(connection: Connection, membership: RoomMembership): Promise<void> {
    if (connection.memberships.get(membership.roomId) === membership) {
      connection.memberships.delete(membership.roomId);
    }
    this.rooms.detach(membership);
    for (const { hooks } of this.deps.modules) {
      const leave = hooks.realtime?.join?.leave;
      if (leave !== undefined) await leave(this, membership);
    }
  }

  /**
   * The drain (SIGTERM): new connections are refused with 1012 from now on, and the open ones, the raw
   * socket routes' included, are closed with 1012 in jittered batches over `windowMs` (drain.ts), so their
   * clients reconnect to the other instances a few at a time. Resolves when the last batch was closed.
   */
  drain(windowMs: number, random?: () => number): Promise<void> {
    this.draining ??= closeInBatches([...this.open, ...this.socketRoutes.flatMap((r) => [...r.guard.open])], {
      clock: this.clock,
      windowMs,
      ...(random === undefined ? {} : { random }),
    });
    return this.draining;
  }

  /**
   * Closes every socket still open with 1012 (a drain's later batches too) and waits (bounded) until
   * their rooms were left, then lets each raw socket route flush what its connections left.
   */
  async shutdown(): Promise<void> {
    if (this.shut) return;
    this.shut = true;
    void this.drain(0);
    this.guard.stop();
    this.guard.drain();
    for (const route of this.socketRoutes) route.drain();
    const deadline = this.clock.now() + this.limits.closeGraceMs + 1000;
    const open = () =>
      this.open.size + this.cleanups.size + this.socketRoutes.reduce((n, r) => n + r.guard.open.size, 0);
    // Polled on a real timer: the sockets' close handshakes need the event loop while this waits.
    while (open() > 0 && this.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const stop of this.stops) stop();
    await Promise.all(
      this.socketRoutes.map((route) =>
        route.stop().catch((error: unknown) => this.report(error, 'stopping a raw socket route')),
      ),
    );
  }

  private closed(connection: Connection): void {
    connection.closed();
    if (!this.guard.remove(connection)) return;
    const cleanup = Promise.all(
      [...connection.memberships.values()].map((membership) =>
        this.leave(connection, membership).catch((error: unknown) => this.report(error, 'realtime leave')),
      ),
    ).then(() => undefined);
    this.cleanups.add(cleanup);
    void cleanup.finally(() => this.cleanups.delete(cleanup));
  }

  systemContext(tenantId: string): ServiceContext {
    return realtimeContext(this.services, this.deps.log, tenantId, undefined);
  }
}
