import type { Clock, Timer } from '../../core/clock.ts';
import type { ErrorReporter } from '../../core/realtime/index.ts';
import type { ChatMessage } from '../../modules/chat/verbs/message-row.ts';

export type ChatChange = 'updated' | 'deleted';

export interface SequencerDeps {
  /** Committed messages of the room with seq > `afterSeq`, oldest first. */
  readAfter(afterSeq: number, limit: number): Promise<ChatMessage[]>;
  deliverCreated(message: ChatMessage): void;
  deliverChange(op: ChatChange, message: ChatMessage): void;
  gapWaitMs: number;
  clock: Clock;
  report: ErrorReporter;
}

const PAGE = 100;
/** Out-of-order messages held at most; past it the missing ones are read from the database at once. */
const MAX_EARLY = 10_000;

/**
 * Delivers one room's messages in seq order on this instance, whatever order they arrive in.
 *
 * Seqs are dense and committed in order (the room's counter row is locked until commit), but each commit
 * is published by whichever instance made it, so seq 6 can arrive before seq 5. When a message arrives
 * early it waits `gapWaitMs` for the ones before it; then they are read from the database, where they are
 * sure to be: seq 6 could only be numbered after seq 5 committed. Edits and deletions of a message not yet
 * delivered wait for it.
 */
export class ChatSequencer {
  /** The seq to deliver next; undefined until `start` says where the room stood. */
  private next: number | undefined;
  private readonly early = new Map<number, ChatMessage>();
  private readonly pendingChanges = new Map<number, { op: ChatChange; message: ChatMessage }[]>();
  private timer: Timer | undefined;
  private filling = false;
  private stopped = false;

  constructor(private readonly deps: SequencerDeps) {}

  /** `latest`: the newest seq committed before this instance subscribed; later ones will be delivered. */
  start(latest: number): void {
    this.next = latest + 1;
    for (const seq of this.early.keys()) if (seq <= latest) this.early.delete(seq);
    for (const [seq, changes] of this.pendingChanges) {
      if (seq > latest) continue;
      this.pendingChanges.delete(seq);
      for (const change of changes) this.deps.deliverChange(change.op, change.message);
    }
    this.drain();
  }

  /** The room was deleted: a room created again under its id numbers its messages from 1 again. */
  reset(): void {
    this.early.clear();
    this.pendingChanges.clear();
    this.timer?.cancel();
    this.timer = undefined;
    this.next = 1;
  }

  created(message: ChatMessage): void {
    if (this.stopped || (this.next !== undefined && message.seq < this.next)) return;
    this.early.set(message.seq, message);
    this.drain();
  }

  changed(op: ChatChange, message: ChatMessage): void {
    if (this.stopped) return;
    if (this.next !== undefined && message.seq < this.next) {
      this.deps.deliverChange(op, message);
      return;
    }
    const waiting = this.pendingChanges.get(message.seq) ?? [];
    waiting.push({ op, message });
    this.pendingChanges.set(message.seq, waiting);
  }

  /** Messages may have been lost (the backplane reconnected): read whatever came after the last one. */
  catchUp(): void {
    void this.fill();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.early.clear();
    this.pendingChanges.clear();
  }

  private drain(): void {
    if (this.next === undefined) return;
    for (
      let message = this.early.get(this.next);
      message !== undefined;
      message = this.early.get(this.next)
    ) {
      const seq: number = this.next;
      this.early.delete(seq);
      this.next = seq + 1;
      this.deps.deliverCreated(message);
      const changes = this.pendingChanges.get(seq);
      this.pendingChanges.delete(seq);
      for (const change of changes ?? []) this.deps.deliverChange(change.op, change.message);
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
        for (const row of rows) this.created(row);
        if (rows.length === 0 && this.next === from) this.skipMissing();
        if (rows.length < PAGE) break;
      }
    } catch (error) {
      this.deps.report(error, 'realtime chat catch-up');
    } finally {
      this.filling = false;
      if (this.early.size > 0) this.armTimer();
    }
  }

  /** The database has nothing where the gap is (its room was deleted): go on from what did arrive. */
  private skipMissing(): void {
    const seqs = [...this.early.keys()];
    if (seqs.length === 0) return;
    this.next = Math.min(...seqs);
    this.drain();
  }
}
