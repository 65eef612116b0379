import type { FastifyBaseLogger, FastifyRequest, FastifySchema } from 'fastify';
import type { Principal, PrincipalKind } from '../auth/principal.ts';

/*
 * A WebSocket route of a module that speaks a protocol of its own (y-websocket for sync), declared in its
 * hooks as `realtime.sockets`. The gateway registers it and keeps its connections the way it keeps its own:
 * pings and dead-peer drop, expiry, revocation and access re-checks, the module switched off, connection
 * caps per instance, tenant and actor, and drain on shutdown, with the gateway's close codes (4401, 4403,
 * 1012, 1009). The module supplies only its protocol: what a message does, and what a close leaves behind.
 */

/** Whose share a connection counts against: the session's actor, or the API key (one server, one actor). */
export function holderOf(principal: Principal): string {
  if (principal.kind === 'session') return `actor:${principal.actor.id}`;
  if (principal.kind === 'api_key') return `key:${principal.apiKeyId}`;
  return `${principal.kind}:unknown`;
}

/** What the gateway enforces on a raw socket route's connections (the module's configured values). */
export interface SocketRouteLimits {
  /** Larger frames close the connection with 1009. */
  maxFrameBytes: number;
  /** Every connection is pinged this often; one that did not answer the previous ping is cut off. */
  pingIntervalMs: number;
  /** How often each connection's credential and its tenant's module are checked again (4401, 4403). */
  accessCheckIntervalMs: number;
  /** Bytes waiting to be sent to one client before it counts as too slow (closed with `slowReaderClose`). */
  maxBufferedBytes: number;
  /** Connections of the route on this instance, of one tenant, of one actor (an API key counts as one). */
  maxConnections: number;
  maxConnectionsPerTenant: number;
  maxConnectionsPerActor: number;
}

/** One upgraded connection of a raw socket route, as the module sees it. */
export interface RawSocketConnection {
  readonly id: string;
  readonly principal: Principal;
  readonly tenantId: string;
  /** `holderOf(principal)`. */
  readonly holder: string;
  readonly log: FastifyBaseLogger;
  readonly isOpen: boolean;
  /** Sends a binary frame; a client that stopped reading is closed instead (`slowReaderClose`). */
  send(message: Uint8Array): void;
  close(code: number, reason: string): void;
  /** Before acting for the credential (storing a write): false, and closed with 4401, once it is void. */
  stillAuthorized(): Promise<boolean>;
}

/** The module's side of one connection: the frames it receives, and its close (however it happened). */
export interface RawSocketSession {
  message(data: Uint8Array, isBinary: boolean): void;
  closed(): void;
}

/** What the module admitted before the upgrade: how to open its session, and its own slots' release. */
export interface AdmittedSocket {
  open(connection: RawSocketConnection): RawSocketSession;
  release?(): void;
}

/** A raw socket route (its URLs share everything but their path parameters). */
export interface SocketRoute {
  /** The module whose switch, scope and sessions govern the route. */
  module: string;
  urls: readonly string[];
  /** The route's credentials and scope (`queryToken` is always on: browsers cannot set headers). */
  auth: { credentials: readonly PrincipalKind[]; scope: string };
  /** The OpenAPI description of one URL. */
  schema(url: string): FastifySchema;
  /** Limits read when the gateway starts. */
  limits: SocketRouteLimits;
  /** The close code when a client reads too slowly (the protocol's own: its client must reconnect on it). */
  slowReaderClose: number;
  /** A refused upgrade over the instance's cap: 503 (reconnect elsewhere) or 429 with Retry-After. */
  instanceFull: 503 | 429;
  /** The settings of a tenant's and an actor's share, named in a refusal (`SVC_SYNC_MAX_...`). */
  shareSettings?: { tenant?: string; actor?: string };
  /** Checks before an upgrade and a plain GET alike (e.g. that the room exists); throws an AppError. */
  check?(request: FastifyRequest): Promise<void>;
  /** A plain GET: where to connect, and the limits. */
  describe(request: FastifyRequest): Promise<unknown>;
  /** An upgrade, after the gateway's caps: the module's own checks and slots (throws an AppError). */
  admit(
    request: FastifyRequest,
    credential: { principal: Principal; token: string },
  ): Promise<AdmittedSocket>;
  /** Background work of the route while the gateway runs; returns how to stop it. */
  start?(): (() => void) | undefined;
  /** Shutdown, once the route's connections are closed (e.g. flush what they left). */
  stop?(): Promise<void>;
}
