import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocket } from 'ws';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock, Timer } from '../../core/clock.ts';
import type { SocketCounts } from '../../core/ops/metrics/socket-counts.ts';
import { holderOf, type RawSocketConnection } from '../../core/realtime/socket-routes.ts';
import type { GuardedSocket } from './socket-guard.ts';

export interface RawConnectionOptions {
  module: string;
  maxBufferedBytes: number;
  slowReaderClose: number;
  closeGraceMs: number;
  clock: Clock;
  /** The guard's check of the credential (closes with 4401 when it fails). */
  stillAuthorized: (connection: RawConnection) => Promise<boolean>;
  /** The route's counts, when metrics are on. */
  counts?: SocketCounts | undefined;
}

/**
 * One connection of a module's raw socket route: binary frames of the module's protocol, kept alive and
 * checked by the gateway. A peer that did not answer the previous ping (nor sent anything since) is cut
 * off without a close frame: it is not reading, and its client reconnects on 1006 as on any drop.
 */
export class RawConnection implements RawSocketConnection, GuardedSocket {
  readonly id = `conn_${randomUUID()}`;
  readonly holder: string;
  private answered = true;
  private closing = false;
  private closeTimer: Timer | undefined;

  constructor(
    readonly socket: WebSocket,
    readonly principal: Principal,
    readonly token: string,
    readonly tenantId: string,
    readonly log: FastifyBaseLogger,
    private readonly options: RawConnectionOptions,
  ) {
    this.holder = holderOf(principal);
  }

  get isOpen(): boolean {
    return !this.closing && this.socket.readyState === WebSocket.OPEN;
  }

  send(message: Uint8Array): void {
    if (!this.isOpen) return;
    if (this.socket.bufferedAmount > this.options.maxBufferedBytes) {
      this.close(this.options.slowReaderClose, 'the client reads too slowly; reconnect');
      return;
    }
    this.socket.send(message);
    if (this.options.counts !== undefined) this.options.counts.framesOut += 1;
  }

  close(code: number, reason: string): void {
    if (this.closing) return;
    this.closing = true;
    const { counts } = this.options;
    if (code === this.options.slowReaderClose && counts !== undefined) counts.slowConsumerDrops += 1;
    const { readyState } = this.socket;
    if (readyState !== WebSocket.OPEN && readyState !== WebSocket.CONNECTING) return;
    this.socket.close(code, reason);
    // A peer that never answers the close frame (or never reads up to it) is cut off.
    this.closeTimer = this.options.clock.setTimeout(() => this.socket.terminate(), this.options.closeGraceMs);
  }

  /** The socket is gone (either side closed it). */
  closed(): void {
    this.closing = true;
    this.closeTimer?.cancel();
  }

  stillAuthorized(): Promise<boolean> {
    return this.options.stillAuthorized(this);
  }

  /** A frame or a pong arrived. */
  heard(): void {
    this.answered = true;
  }

  isDead(): boolean {
    return !this.answered;
  }

  pinged(): void {
    this.answered = false;
  }

  dropDead(): void {
    this.closed();
    this.socket.terminate();
  }

  refusedBy(enabled: ReadonlySet<string>): string | undefined {
    return enabled.has(this.options.module)
      ? undefined
      : `the tenant switched the ${this.options.module} module off`;
  }
}
