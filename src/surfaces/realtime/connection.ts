import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocket } from 'ws';
import type { Principal } from '../../core/auth/principal.ts';
import { hasScope } from '../../core/auth/principal.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { SocketCounts } from '../../core/ops/metrics/socket-counts.ts';
import type { EncodedFrame, RealtimeConnection, RealtimeSession } from '../../core/realtime/contributions.ts';
import { CLOSE, type CloseCode } from './close-codes.ts';
import type { GatewayLimits } from './limits.ts';
import type { RoomMembership } from './membership.ts';
import { TokenBucket } from './rate-limiter.ts';
import type { GuardedSocket } from './socket-guard.ts';
import { frameHeader, type WriteCoalescer } from './wire.ts';

/** Frames are JSON text; one options object for every send of the hot fan-out path. */
const AS_TEXT = { binary: false } as const;

export type Admission = 'accepted' | 'refused' | 'flooding';

/** The TCP socket under a `ws` WebSocket (not in its public types; present on every open server socket). */
function rawSocket(socket: WebSocket): Socket | undefined {
  return (socket as unknown as { _socket?: Socket })._socket;
}

/** One WebSocket: its session, rooms, limits and the one-at-a-time queue its frames are handled in. */
export class Connection implements RealtimeConnection, GuardedSocket {
  readonly id = `conn_${randomUUID()}`;
  /** The modules the session token was minted for (tokens are immutable: fixed for the connection's life). */
  readonly modules: ReadonlySet<string>;
  readonly memberships = new Map<string, RoomMembership>();
  lastHeardAt: number;
  private closing = false;
  private closeTimer: Timer | undefined;
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;
  private refusedInARow = 0;
  private warnedAt = Number.NEGATIVE_INFINITY;
  private readonly bucket: TokenBucket;
  private corked: Socket | undefined;
  /**
   * The TCP socket, when frames may be written to it directly: with no extension negotiated (this server
   * offers none) `ws` writes each frame at once, in order, so a frame written to its socket directly takes
   * its place among them. Fixed at the upgrade.
   */
  private readonly direct: Socket | undefined;
  /** `hasScope` of the token, by scope, as asked. */
  private scopes: Map<string, boolean> | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly session: RealtimeSession,
    readonly log: FastifyBaseLogger,
    private readonly limits: GatewayLimits,
    private readonly clock: Clock,
    private readonly coalescer: WriteCoalescer,
    /** The app's `/v1/realtime` counts, when metrics are on. */
    private readonly counts?: SocketCounts,
  ) {
    this.lastHeardAt = clock.now();
    const { principal } = session;
    this.modules = new Set(principal.kind === 'session' ? principal.modules : []);
    this.bucket = new TokenBucket(limits.framesPerSecond, limits.frameBurst, clock.now());
    this.direct = socket.extensions === '' ? rawSocket(socket) : undefined;
  }

  get principal(): Principal {
    return this.session.principal;
  }

  get token(): string {
    return this.session.token;
  }

  get tenantId(): string {
    return this.session.tenantId;
  }

  may(module: string, scope: string): boolean {
    if (!this.modules.has(module)) return false;
    // Asked for every member of a room per frame it fans out; the token's scopes never change.
    this.scopes ??= new Map();
    let has = this.scopes.get(scope);
    if (has === undefined) {
      has = hasScope(this.session.principal, scope);
      this.scopes.set(scope, has);
    }
    return has;
  }

  get isOpen(): boolean {
    return !this.closing && this.socket.readyState === WebSocket.OPEN;
  }

  /**
   * Writes a frame unless the client is not reading: past `maxBufferedBytes` waiting to be written it is
   * disconnected (4413) instead, so one slow reader can never grow the server's memory without bound.
   */
  send(frame: EncodedFrame): boolean {
    if (!this.admitsWrite()) return false;
    const raw = this.direct;
    if (raw === undefined) this.socket.send(frame, AS_TEXT);
    else this.corkedFor(raw).write(this.coalescer.forms.of(frame));
    if (this.counts !== undefined) this.counts.framesOut += 1;
    return true;
  }

  /**
   * Writes a frame given as its parts (encodeFrameParts): to a socket written directly, the header and
   * then each part as it is, so a large part many frames share (a full room's member list in a crowd's
   * `joined` frames) is not copied for each of them; through `ws`, joined first. As `send` otherwise.
   */
  sendParts(parts: readonly Buffer[]): boolean {
    const raw = this.direct;
    if (raw === undefined || parts.length === 1) return this.send(Buffer.concat(parts));
    if (!this.admitsWrite()) return false;
    const socket = this.corkedFor(raw);
    let length = 0;
    for (const part of parts) length += part.length;
    socket.write(frameHeader(length));
    for (const part of parts) socket.write(part);
    if (this.counts !== undefined) this.counts.framesOut += 1;
    return true;
  }

  /** Whether a frame may be written now; closes a connection whose client has stopped reading. */
  private admitsWrite(): boolean {
    if (!this.isOpen) return false;
    const raw = this.direct;
    // What waits to be written: the TCP socket's queue when frames go to it directly (ws queues nothing
    // then), else what ws counts.
    const waiting = raw === undefined ? this.socket.bufferedAmount : raw.writableLength;
    if (waiting > this.limits.maxBufferedBytes) {
      this.close(CLOSE.slowConsumer, 'too slow to keep up; reconnect and resume');
      return false;
    }
    return true;
  }

  /** The socket, corked on this turn's first frame and uncorked by the coalescer's flush. */
  private corkedFor(raw: Socket): Socket {
    if (this.corked === undefined) {
      raw.cork();
      this.corked = raw;
      this.coalescer.add(this);
    }
    return raw;
  }

  /** Writes what this turn's sends left in the corked socket (see WriteCoalescer). */
  flush(): void {
    const raw = this.corked;
    this.corked = undefined;
    raw?.uncork();
  }

  /** Resolves true once the send buffer is below half the limit, false when the connection closed first. */
  async drained(): Promise<boolean> {
    while (this.isOpen && this.socket.bufferedAmount > this.limits.maxBufferedBytes / 2) {
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, 10));
    }
    return this.isOpen;
  }

  /** Sends the close frame; a client that does not answer within the grace period is cut off. */
  close(code: CloseCode, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    if (code === CLOSE.slowConsumer && this.counts !== undefined) this.counts.slowConsumerDrops += 1;
    try {
      this.socket.close(code, reason);
      // The close frame follows this turn's frames; let them all go now.
      this.flush();
    } catch {
      this.socket.terminate();
      return;
    }
    this.closeTimer = this.clock.setTimeout(() => this.socket.terminate(), this.limits.closeGraceMs);
  }

  /** Called once the socket is closed either way. */
  closed(): void {
    this.closing = true;
    this.closeTimer?.cancel();
  }

  /** Silent (no frame, no pong) for longer than the idle timeout. */
  isDead(now: number): boolean {
    return now - this.lastHeardAt > this.limits.idleTimeoutMs;
  }

  dropDead(): void {
    this.close(CLOSE.idle, 'idle timeout: nothing heard from the client');
  }

  /** Answers to pings count as they come (`lastHeardAt`). */
  pinged(): void {}

  refusedBy(enabled: ReadonlySet<string>): string | undefined {
    return [...this.modules].some((module) => enabled.has(module))
      ? undefined
      : 'the tenant disabled every module of this session token';
  }

  /** The per-connection rate limit: each frame takes a token; a client that keeps pushing is flooding. */
  admit(): Admission {
    if (this.bucket.take(this.clock.now())) {
      this.refusedInARow = 0;
      return 'accepted';
    }
    this.refusedInARow += 1;
    return this.refusedInARow > this.limits.floodCloseAfter ? 'flooding' : 'refused';
  }

  /** At most one rate-limit warning per second, so the warnings cannot become a flood of their own. */
  mayWarn(): boolean {
    const now = this.clock.now();
    if (now - this.warnedAt < 1000) return false;
    this.warnedAt = now;
    return true;
  }

  /** Runs frame handlers one at a time in arrival order; false when too many are waiting already. */
  enqueue(task: () => Promise<void>): boolean {
    if (this.queued >= this.limits.maxQueuedFrames) return false;
    this.queued += 1;
    this.queue = this.queue
      .then(task)
      // Handlers report their own failures; this only keeps one stray rejection from stalling the queue.
      .catch((error: unknown) => this.log.error({ err: error }, 'realtime frame handler failed'))
      .finally(() => {
        this.queued -= 1;
      });
    return true;
  }
}
