import type { Clock } from '../../core/clock.ts';
import type { ServiceContext } from '../../core/context.ts';
import type { RawSocketConnection } from '../../core/realtime/socket-routes.ts';
import type { DocumentKey } from './document-key.ts';

/** What a connection was admitted with, fixed for its life. */
export interface SyncSession {
  key: DocumentKey;
  /** Holds `sync:write`: otherwise its updates are dropped (and counted). */
  canWrite: boolean;
  /** The verb context its appends run in (tenant, principal, trace of the upgrade request). */
  ctx: ServiceContext;
  maxDocumentBytes: number;
  eventThrottleMs: number;
  updatesPerSecond: number;
}

/**
 * One client of one document: the gateway's socket (kept alive and checked by it), its rate budget, the
 * awareness states it speaks for, and the queue its messages are handled in.
 */
export class SyncConnection {
  /** Awareness client ids this connection set: removed for the others when it closes. */
  readonly awarenessIds = new Set<number>();
  /** Updates of a read-only connection that were dropped. */
  droppedUpdates = 0;
  /** Messages are handled one at a time, in order, once the document is loaded. */
  inbox: Promise<unknown> = Promise.resolve();
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly socket: RawSocketConnection,
    readonly session: SyncSession,
    private readonly clock: Clock,
  ) {
    this.tokens = 2 * session.updatesPerSecond;
    this.refilledAt = clock.now();
  }

  /** Whose share the connection counts against, and who its awareness ids belong to (`holderOf`). */
  get holder(): string {
    return this.socket.holder;
  }

  get isOpen(): boolean {
    return this.socket.isOpen;
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
    this.socket.send(message);
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }
}
