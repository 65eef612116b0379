import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { Identity } from '../../core/auth/identity.ts';
import { actorOf } from '../../core/auth/principal.ts';
import type { Clock } from '../../core/clock.ts';
import { type ServiceContext, type Services, serviceContext } from '../../core/context.ts';
import { RateLimited } from '../../core/http/errors.ts';
import { traceFrom } from '../../core/http/request-id.ts';
import { newId } from '../../core/ids.ts';
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
import { CLOSE } from './close-codes.ts';
import { Connection } from './connection.ts';
import { ConnectionCaps } from './connection-caps.ts';
import { FanOutPacer } from './fan-out-pacer.ts';
import { handleFrame } from './handlers/dispatch.ts';
import { membershipIn } from './handlers/room-checks.ts';
import { Heartbeat } from './heartbeat.ts';
import type { GatewayLimits } from './limits.ts';
import { LocalRooms } from './local-rooms.ts';
import type { RoomMembership } from './membership.ts';
import { Protocol } from './protocol.ts';
import { startRelays } from './relays.ts';
import { openSession } from './session.ts';

export interface GatewayDeps {
  services: Services;
  identity: Identity;
  backplane: RealtimeBackplane;
  /** Every module's hooks; the gateway uses their `realtime` parts. */
  modules: readonly InstalledHooks[];
  limits: GatewayLimits;
  log: FastifyBaseLogger;
}

/** Retry-After of a refused upgrade: a full instance frees up (or another takes over) sooner than a person closes a tab. */
const RETRY_AFTER_SECONDS = { instance: 5, actor: 30 } as const;

/**
 * The `/v1/realtime` gateway of one instance: its sockets, the rooms they are in, and the relays between
 * the event bus, the backplane and the sockets. State shared with other instances lives in the backplane.
 */
export class Gateway implements RealtimeHost {
  readonly open = new Set<Connection>();
  readonly rooms: LocalRooms;
  readonly services: Services;
  readonly backplane: RealtimeBackplane;
  readonly limits: GatewayLimits;
  readonly clock: Clock;
  /** The frames clients may send, the modules' included. */
  readonly protocol: Protocol;
  /** What each module adds to joining and leaving a room, in module order. */
  readonly joins: readonly JoinContribution[];
  /** Spreads room fan-out and `joined` frames over turns of the event loop. */
  readonly pacer: FanOutPacer;
  private readonly cleanups = new Set<Promise<void>>();
  private readonly stops: (() => void)[] = [];
  private readonly heartbeat: Heartbeat;
  private readonly caps: ConnectionCaps;
  private closing = false;

  constructor(private readonly deps: GatewayDeps) {
    this.services = deps.services;
    this.backplane = deps.backplane;
    this.limits = deps.limits;
    this.clock = deps.services.clock;
    this.heartbeat = new Heartbeat(this);
    this.pacer = new FanOutPacer(deps.limits.fanOutPerTurn);
    this.caps = new ConnectionCaps(deps.limits.maxConnections, deps.limits.maxConnectionsPerActor);
    this.protocol = new Protocol(deps.modules);
    this.joins = deps.modules.flatMap(({ hooks }) => hooks.realtime?.join ?? []);
    const handlers = deps.modules.flatMap(({ module, hooks }) =>
      hooks.realtime === undefined ? [] : [{ module, hooks: hooks.realtime }],
    );
    this.rooms = new LocalRooms({
      host: this,
      pubsub: deps.backplane.pubsub,
      modules: {
        handlers,
        moduleOfEvent: (type) => deps.services.registry.moduleOfEvent(type),
        resetEvents: new Set(handlers.flatMap(({ hooks }) => hooks.roomResetEvents ?? [])),
      },
      report: this.report,
      pacer: this.pacer,
    });
  }

  get modules(): readonly InstalledHooks[] {
    return this.deps.modules;
  }

  get presence(): PresenceStore {
    return this.backplane.presence;
  }

  get pubsub(): PubSub {
    return this.backplane.pubsub;
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
    this.stops.push(...startRelays(this));
    // A revocation reaches this instance (at once where it was made, within a poll elsewhere): the
    // sockets of the revoked tokens close now, not at the next heartbeat.
    this.stops.push(
      this.deps.identity.revocations.onSessionsRevoked(() => {
        for (const connection of this.open) void this.checkSession(connection);
      }),
    );
    this.heartbeat.start();
  }

  /**
   * Whether the connection's token is still good (not expired, not revoked): checked before every frame
   * and whenever sessions are revoked. A token that is not closes the connection with 4401.
   */
  async checkSession(connection: Connection): Promise<boolean> {
    try {
      await this.deps.identity.sessions.verify(connection.session.token);
      return true;
    } catch {
      connection.close(CLOSE.unauthorized, 'the session token expired or was revoked');
      return false;
    }
  }

  /**
   * Before an upgrade: refuses it with HTTP 429 when this instance, or the actor on it, already holds as
   * many connections as allowed. The slot is held as long as the TCP connection, so it is given back
   * however that ends: a failed handshake, the client leaving, or a close by the server.
   */
  admit(request: FastifyRequest): void {
    const actorId = actorOf(request.principal)?.id;
    // Not an actor's session: `accept` closes it at once (4401), so it needs no slot.
    if (actorId === undefined) return;
    const slot = this.caps.take(actorId);
    if (slot === 'instance') {
      throw new RateLimited(
        `this instance holds ${this.caps.max} realtime connections, its limit; retry shortly`,
        RETRY_AFTER_SECONDS.instance,
      );
    }
    if (slot === 'actor') {
      throw new RateLimited(
        `this actor already has ${this.caps.maxPerActor} realtime connections open on this instance, the limit; close one and retry`,
        RETRY_AFTER_SECONDS.actor,
      );
    }
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
    const connection = new Connection(socket, session, request.log, this.limits, this.clock);
    if (this.closing) {
      connection.close(CLOSE.restart, 'server restarting');
      return;
    }
    this.open.add(connection);
    // The token's end is the connection's end: closed at `exp` even between heartbeats.
    const { principal } = session;
    if (principal.kind === 'session') {
      connection.expireAt(principal.expiresAt, () =>
        connection.close(CLOSE.unauthorized, 'the session token expired'),
      );
    }
    socket.on('message', (data, isBinary) => handleFrame(this, connection, data, isBinary));
    socket.on('pong', () => {
      connection.lastHeardAt = this.clock.now();
    });
    socket.on('close', () => this.closed(connection));
  }

  /** The verb context of a frame: the connection's tenant and principal, a fresh request id and trace. */
  context(connection: RealtimeConnection): ServiceContext {
    return serviceContext(this.services, {
      log: connection.log,
      tenantId: connection.session.tenantId,
      principal: connection.session.principal,
      requestId: newId('request', this.services.clock.now()),
      trace: traceFrom(undefined),
      origin: 'realtime',
    });
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

  /** Closes every socket with 1012 and waits (bounded) until their rooms were left. */
  async shutdown(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.heartbeat.stop();
    for (const connection of this.open) connection.close(CLOSE.restart, 'server restarting');
    const deadline = this.clock.now() + this.limits.closeGraceMs + 1000;
    // Polled on a real timer: the sockets' close handshakes need the event loop while this waits.
    while ((this.open.size > 0 || this.cleanups.size > 0) && this.clock.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const stop of this.stops) stop();
  }

  private closed(connection: Connection): void {
    connection.closed();
    if (!this.open.delete(connection)) return;
    const cleanup = Promise.all(
      [...connection.memberships.values()].map((membership) =>
        this.leave(connection, membership).catch((error: unknown) => this.report(error, 'realtime leave')),
      ),
    ).then(() => undefined);
    this.cleanups.add(cleanup);
    void cleanup.finally(() => this.cleanups.delete(cleanup));
  }

  systemContext(tenantId: string): ServiceContext {
    return serviceContext(this.services, {
      log: this.deps.log,
      tenantId,
      principal: undefined,
      requestId: newId('request', this.services.clock.now()),
      trace: traceFrom(undefined),
      origin: 'realtime',
    });
  }
}
