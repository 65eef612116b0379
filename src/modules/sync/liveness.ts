import type { Clock, Timer } from '../../core/clock.ts';
import type { SyncConnection } from './connection.ts';

/**
 * Every `pingIntervalMs` while connections are open: one that did not answer the last ping is dropped,
 * the others pinged. With none open no timer runs (the first connection starts it again).
 */
export class SyncLiveness {
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly pingIntervalMs: number,
    private readonly open: () => ReadonlySet<SyncConnection>,
  ) {}

  ensureScheduled(): void {
    if (this.timer === undefined) this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      const open = this.open();
      for (const connection of open) {
        if (!connection.alive) {
          connection.closed();
          connection.socket.terminate();
          continue;
        }
        connection.alive = false;
        if (connection.isOpen) connection.socket.ping();
      }
      if (open.size > 0) this.schedule();
    }, this.pingIntervalMs);
  }
}
