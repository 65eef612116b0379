import type { Clock, Timer } from '../../../core/clock.ts';
import type { ErrorReporter } from '../../../core/realtime/index.ts';

/** An auction's numbered frames are one ordered stream of each membership. */
export const streamOf = (auctionId: string) => `auction:${auctionId}`;

export interface LoggedFrame {
  seq: number;
  frame: Record<string, unknown>;
}

export interface AuctionStreamDeps {
  /** Logged frames of the auction with seq >= `from`, oldest first. */
  readFrom(from: number, limit: number): Promise<LoggedFrame[]>;
  deliver(logged: LoggedFrame): void;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
}

const PAGE = 500;
const MAX_EARLY = 10_000;

/**
 * Delivers one auction's frames on this instance in seq order, whatever order they arrive in: seqs are
 * dense and committed in order (the auction's row is locked until commit), but each commit is published
 * by the instance that made it, so seq 6 can arrive before seq 5. One that arrives early waits
 * `gapWaitMs` for the ones before it; then they are read from the auction's log, where they are sure to be.
 */
export class AuctionStream {
  private readonly early = new Map<number, LoggedFrame>();
  private timer: Timer | undefined;
  private filling = false;
  private stopped = false;

  /** `next`: the seq to deliver next (one past the newest committed when this instance subscribed). */
  constructor(
    private next: number,
    private readonly deps: AuctionStreamDeps,
  ) {}

  received(logged: LoggedFrame): void {
    if (this.stopped || logged.seq < this.next) return;
    this.early.set(logged.seq, logged);
    this.drain();
  }

  /** Frames may have been lost (the backplane reconnected): read whatever came after the last one. */
  catchUp(): void {
    void this.fill();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.early.clear();
  }

  private drain(): void {
    for (let f = this.early.get(this.next); f !== undefined; f = this.early.get(this.next)) {
      this.early.delete(f.seq);
      this.next = f.seq + 1;
      this.deps.deliver(f);
    }
    if (this.early.size === 0) {
      this.timer?.cancel();
      this.timer = undefined;
    } else if (this.early.size > MAX_EARLY) {
      void this.fill();
    } else if (this.timer === undefined && !this.filling && !this.stopped) {
      this.timer = this.deps.clock.setTimeout(() => {
        this.timer = undefined;
        void this.fill();
      }, this.deps.gapWaitMs);
    }
  }

  private async fill(): Promise<void> {
    if (this.filling || this.stopped) return;
    this.filling = true;
    this.timer?.cancel();
    this.timer = undefined;
    try {
      for (;;) {
        const from = this.next;
        const rows = await this.deps.readFrom(from, PAGE);
        if (this.stopped) return;
        for (const row of rows)
          if (row.seq >= this.next && !this.early.has(row.seq)) this.early.set(row.seq, row);
        this.drain();
        if (rows.length === 0 && this.next === from && this.early.size > 0) {
          // Nothing where the gap is (the auction was deleted): go on from what did arrive.
          this.next = Math.min(...this.early.keys());
          this.drain();
        }
        if (rows.length < PAGE) break;
      }
    } catch (error) {
      this.deps.report(error, 'realtime auction catch-up');
    } finally {
      this.filling = false;
      if (this.early.size > 0 && !this.stopped) this.drain();
    }
  }
}
