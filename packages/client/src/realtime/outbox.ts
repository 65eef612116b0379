import type { Timers } from './timers.js';
import type { WebSocketLike } from './types.js';

/**
 * Frames on their way to the socket, in order, no faster than the server takes them: a token bucket a
 * little below the server's (20 a second, bursts of 40), because the server drops frames over its rate
 * with an `error` that names none of them. Cleared when the socket goes: what must survive a reconnect
 * (joins, presence, unacknowledged sends) is sent again by the rooms.
 */
export class Outbox {
  private readonly queue: string[] = [];
  private tokens: number;
  private refilledAt: number;
  private timer: unknown;
  private socket: WebSocketLike | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
    this.refilledAt = timers.now();
  }

  attach(socket: WebSocketLike): void {
    this.socket = socket;
    this.flush();
  }

  detach(): void {
    this.socket = undefined;
    this.queue.length = 0;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  push(frame: string): void {
    if (this.socket === undefined) return;
    this.queue.push(frame);
    this.flush();
  }

  private refill(): void {
    const now = this.timers.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
  }

  private flush(): void {
    if (this.timer !== undefined || this.socket === undefined) return;
    this.refill();
    while (this.queue.length > 0 && this.tokens >= 1) {
      const frame = this.queue.shift();
      if (frame === undefined) break;
      this.tokens -= 1;
      this.socket.send(frame);
    }
    if (this.queue.length === 0) return;
    const waitMs = Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, waitMs);
  }
}
