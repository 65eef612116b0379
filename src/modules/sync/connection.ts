import type { FastifyBaseLogger } from 'fastify';
import { WebSocket } from 'ws';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { ServiceContext } from '../../core/context.ts';
import { holderOf } from './caps.ts';
import type { DocumentKey } from './document-key.ts';
import { SYNC_CLOSE } from './limits.ts';

/** How long a closed connection's peer has to answer the close frame before its socket is cut. */
const CLOSE_GRACE_MS = 2000;

/** What a connection was admitted with, fixed for its life. */
export interface SyncSession {
  key: DocumentKey;
  principal: Principal;
  /** The credential as sent (session token or API key), verified again when credentials are revoked. */
  token: string;
  /** Holds `sync:write`: otherwise its updates are dropped (and counted). */
  canWrite: boolean;
  /** The verb context its appends run in (tenant, principal, trace of the upgrade request). */
  ctx: ServiceContext;
  maxDocumentBytes: number;
  eventThrottleMs: number;
  updatesPerSecond: number;
}

/** One client of one document: its socket, its rate budget, the awareness states it speaks for. */
export class SyncConnection {
  /** Awareness client ids this connection set: removed for the others when it closes. */
  readonly awarenessIds = new Set<number>();
  /** Whose share the connection counts against, and who its awareness ids belong to (`holderOf`). */
  readonly holder: string;
  /** Updates of a read-only connection that were dropped. */
  droppedUpdates = 0;
  /** Answered the last ping (or sent something since). */
  alive = true;
  /** Messages are handled one at a time, in order, once the document is loaded. */
  inbox: Promise<unknown> = Promise.resolve();
  private tokens: number;
  private refilledAt: number;
  private expiry: Timer | undefined;
  private isClosed = false;

  constructor(
    readonly socket: WebSocket,
    readonly session: SyncSession,
    readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
    private readonly maxBufferedBytes: number,
  ) {
    this.holder = holderOf(session.principal);
    this.tokens = 2 * session.updatesPerSecond;
    this.refilledAt = clock.now();
    const { principal } = session;
    if (principal.kind === 'session') {
      this.expiry = clock.setTimeout(
        () => this.close(SYNC_CLOSE.unauthorized, 'the session token expired'),
        Math.max(0, principal.expiresAt - clock.now()),
      );
    }
  }

  get isOpen(): boolean {
    return !this.isClosed && this.socket.readyState === WebSocket.OPEN;
  }

  /** Token bucket: `updatesPerSecond` sustained, twice that at once. False once the budget is spent. */
  takeMessage(): boolean {
    const now = this.clock.now();
    const rate = this.session.updatesPerSecond;
    this.tokens = Math.min(2 * rate, this.tokens + ((now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  send(message: Uint8Array): void {
    if (!this.isOpen) return;
    if (this.socket.bufferedAmount > this.maxBufferedBytes) {
      this.close(SYNC_CLOSE.tryAgainLater, 'the client reads too slowly; reconnect');
      return;
    }
    this.socket.send(message);
  }

  close(code: number, reason: string): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.expiry?.cancel();
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(code, reason);
      // A peer that never answers the close frame (or never reads up to it) is cut off.
      this.clock.setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS);
    }
  }

  /** The socket is gone (either side closed it). */
  closed(): void {
    this.isClosed = true;
    this.expiry?.cancel();
  }
}
