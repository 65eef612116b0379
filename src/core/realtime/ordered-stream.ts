import type { Clock, Timer } from '../clock.ts';
import type { ErrorReporter } from './listeners.ts';

/** How modules' ordered streams catch up (chat's changes, auctions' logs), unless a module sets its own. */
export interface StreamTimings {
  /** How long an out-of-order item waits for the ones before it before they are read from the database. */
  gapWaitMs: number;
  /** Items read per page of a catch-up or a resume. */
  replayPageSize: number;
}

export const DEFAULT_STREAM_TIMINGS: StreamTimings = { gapWaitMs: 100, replayPageSize: 100 };

export interface OrderedStreamDeps<T> {
  /** The item's number in the stream: dense, from 1. */
  seqOf(item: T): number;
  /** Committed items with seq >= `from`, oldest first, at most `limit`. */
  readFrom(from: number, limit: number): Promise<T[]>;
  deliver(item: T): void;
  /** Items read per page of a catch-up. */
  pageSize: number;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
  /** Names a failed catch-up in the report, e.g. `realtime chat catch-up`. */
  reportContext: string;
  /** Called when a catch-up ends, read to its end or failed. */
  caughtUp?(): void;
}

/** Out-of-order items held at most; past it the missing ones are read from the database at once. */
const MAX_EARLY = 10_000;

/**
 * Delivers one stream of numbered items on this instance in seq order, whatever order they arrive in:
 * seqs are dense and committed in order (a row is locked until commit), but each commit is published by
 * the instance that made it, so item 6 can arrive before item 5. One that arrives early waits `gapWaitMs`
 * for the ones before it; then they are read from the database, where they are sure to be: item 6 could
 * only be numbered after item 5 committed.
 */
export class OrderedStream<T> {
  private readonly early = new Map<number, T>();
  private timer: Timer | undefined;
  private filling = false;
  private stopped = false;

  /** `next`: the seq to deliver next; undefined until `start` says where the stream stood. */
  constructor(
    private readonly deps: OrderedStreamDeps<T>,
    private next?: number,
  ) {}

  /** From here on `next` is delivered next; items held from before it are dropped. */
  start(next: number): void {
    this.next = next;
    for (const seq of this.early.keys()) if (seq < next) this.early.delete(seq);
    this.drain();
  }

  /** Starts over at `next` (the stream's owner was deleted and may be created again), holding nothing. */
  reset(next: number): void {
    this.early.clear();
    this.timer?.cancel();
    this.timer = undefined;
    this.next = next;
  }

  /** An item published live. */
  received(item: T): void {
    const seq = this.deps.seqOf(item);
    if (this.stopped || (this.next !== undefined && seq < this.next)) return;
    this.early.set(seq, item);
    this.drain();
  }

  /** Items may have been lost (the backplane reconnected): read whatever came after the last one. */
  catchUp(): void {
    void this.fill();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.early.clear();
  }

  private drain(): void {
    if (this.next === undefined) return;
    for (let item = this.early.get(this.next); item !== undefined; item = this.early.get(this.next)) {
      const seq = this.deps.seqOf(item);
      this.early.delete(seq);
      this.next = seq + 1;
      this.deps.deliver(item);
    }
    if (this.early.size === 0) {
      this.timer?.cancel();
      this.timer = undefined;
    } else if (this.early.size > MAX_EARLY) {
      void this.fill();
    } else {
      this.armTimer();
    }
  }

  private armTimer(): void {
    if (this.timer !== undefined || this.filling || this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      void this.fill();
    }, this.deps.gapWaitMs);
  }

  /**
   * Reads the items after the last one delivered until a page comes back short. An item that also
   * arrived live is delivered from its live copy.
   */
  private async fill(): Promise<void> {
    if (this.filling || this.stopped || this.next === undefined) return;
    this.filling = true;
    this.timer?.cancel();
    this.timer = undefined;
    const { pageSize, seqOf } = this.deps;
    try {
      for (;;) {
        const from: number = this.next;
        const rows = await this.deps.readFrom(from, pageSize);
        if (this.stopped) return;
        for (const row of rows) {
          const seq = seqOf(row);
          if (seq >= this.next && !this.early.has(seq)) this.early.set(seq, row);
        }
        this.drain();
        if (rows.length === 0 && this.next === from) this.skipMissing();
        if (rows.length < pageSize) break;
      }
    } catch (error) {
      this.deps.report(error, this.deps.reportContext);
    } finally {
      this.filling = false;
      this.deps.caughtUp?.();
      if (this.early.size > 0) this.armTimer();
    }
  }

  /** The database has nothing where the gap is (its owner was deleted): go on from what did arrive. */
  private skipMissing(): void {
    const waiting = [...this.early.keys()];
    if (waiting.length === 0) return;
    this.next = Math.min(...waiting);
    this.drain();
  }
}
