import type { Clock, Timer } from '../../../core/clock.ts';
import type { ErrorReporter } from '../../../core/realtime/index.ts';
import type { StoredChange } from '../verbs/list-changes.ts';
import { type ChatChange, SentAhead, storedChange } from './changes.ts';

export interface SequencerDeps {
  /** Committed changes of the room with changeSeq > `after`, oldest first. */
  readAfter(after: number, limit: number): Promise<StoredChange[]>;
  deliver(change: ChatChange): void;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
}

const PAGE = 100;
/** Out-of-order changes held at most; past it the missing ones are read from the database at once. */
const MAX_EARLY = 10_000;

/**
 * Delivers one room's chat changes (creations, edits, reactions, deletions) on this instance in change
 * order, whatever order they arrive in, so the `changeSeq` of the last frame a client got is where it can
 * resume from.
 *
 * Change numbers are dense and committed in order (the room's counter row is locked until commit), but
 * each commit is published by whichever instance made it, so change 6 can arrive before change 5. When
 * one arrives early it waits `gapWaitMs` for the ones before it; then they are read from the database,
 * where they are sure to be: change 6 could only be numbered after change 5 committed.
 */
export class ChatSequencer {
  /** The change to deliver next; undefined until `start` says where the room stood. */
  private next: number | undefined;
  private readonly early = new Map<number, ChatChange>();
  /**
   * During a read from the database: messages delivered with changes in them that are still to go by.
   * Once a read ends with a short page, every change in what it delivered has gone by.
   */
  private readonly ahead = new SentAhead();
  private timer: Timer | undefined;
  private filling = false;
  private stopped = false;

  constructor(private readonly deps: SequencerDeps) {}

  /** `latest`: the newest change committed before this instance subscribed; later ones will be delivered. */
  start(latest: number): void {
    this.next = latest + 1;
    for (const changeSeq of this.early.keys()) if (changeSeq <= latest) this.early.delete(changeSeq);
    this.drain();
  }

  /** The room was deleted: a room created again under its id numbers its changes from 1 again. */
  reset(): void {
    this.early.clear();
    this.ahead.clear();
    this.timer?.cancel();
    this.timer = undefined;
    this.next = 1;
  }

  /** A change published live. */
  received(change: ChatChange): void {
    if (this.stopped || (this.next !== undefined && change.changeSeq < this.next)) return;
    this.early.set(change.changeSeq, change);
    this.drain();
  }

  /** Changes may have been lost (the backplane reconnected): read whatever came after the last one. */
  catchUp(): void {
    void this.fill();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.early.clear();
    this.ahead.clear();
  }

  private drain(): void {
    if (this.next === undefined) return;
    for (let change = this.early.get(this.next); change !== undefined; change = this.early.get(this.next)) {
      this.early.delete(change.changeSeq);
      this.next = change.changeSeq + 1;
      if (this.ahead.admit(change)) this.deps.deliver(change);
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
   * Reads the changes after the last one delivered until a page comes back short. A change that also
   * arrived live is delivered from its live copy (the message as that change left it).
   */
  private async fill(): Promise<void> {
    if (this.filling || this.stopped || this.next === undefined) return;
    this.filling = true;
    this.timer?.cancel();
    this.timer = undefined;
    try {
      for (;;) {
        const from: number = this.next;
        const rows = await this.deps.readAfter(from - 1, PAGE);
        if (this.stopped) return;
        for (const row of rows) {
          if (row.changeSeq < this.next || this.early.has(row.changeSeq)) continue;
          this.early.set(row.changeSeq, storedChange(row));
        }
        this.drain();
        if (rows.length === 0 && this.next === from) this.skipMissing();
        if (rows.length < PAGE) break;
      }
    } catch (error) {
      this.deps.report(error, 'realtime chat catch-up');
    } finally {
      this.filling = false;
      this.ahead.clear();
      if (this.early.size > 0) this.armTimer();
    }
  }

  /** The database has nothing where the gap is (its room was deleted): go on from what did arrive. */
  private skipMissing(): void {
    const waiting = [...this.early.keys()];
    if (waiting.length === 0) return;
    this.next = Math.min(...waiting);
    this.drain();
  }
}
