import type { Clock } from '../../../core/clock.ts';
import type { ErrorReporter } from '../../../core/realtime/index.ts';
import { OrderedStream } from '../../../core/realtime/ordered-stream.ts';
import type { StoredChange } from '../store/change-log.ts';
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

/**
 * Delivers one room's chat changes (creations, edits, reactions, deletions) on this instance in change
 * order, whatever order they arrive in (an `OrderedStream` by `changeSeq`), so the `changeSeq` of the last
 * frame a client got is where it can resume from. A change read back from the database carries its
 * message as it is now, so messages sent ahead of their changes are remembered while a read lasts.
 */
export class ChatSequencer {
  /**
   * During a read from the database: messages delivered with changes in them that are still to go by.
   * Once a read ends with a short page, every change in what it delivered has gone by.
   */
  private readonly ahead = new SentAhead();
  private readonly stream: OrderedStream<ChatChange>;

  constructor(deps: SequencerDeps) {
    this.stream = new OrderedStream<ChatChange>({
      seqOf: (change) => change.changeSeq,
      readFrom: async (from, limit) => (await deps.readAfter(from - 1, limit)).map(storedChange),
      deliver: (change) => {
        if (this.ahead.admit(change)) deps.deliver(change);
      },
      pageSize: PAGE,
      gapWaitMs: deps.gapWaitMs,
      clock: deps.clock,
      report: deps.report,
      reportContext: 'realtime chat catch-up',
      caughtUp: () => this.ahead.clear(),
    });
  }

  /** `latest`: the newest change committed before this instance subscribed; later ones will be delivered. */
  start(latest: number): void {
    this.stream.start(latest + 1);
  }

  /** The room was deleted: a room created again under its id numbers its changes from 1 again. */
  reset(): void {
    this.stream.reset(1);
    this.ahead.clear();
  }

  /** A change published live. */
  received(change: ChatChange): void {
    this.stream.received(change);
  }

  /** Changes may have been lost (the backplane reconnected): read whatever came after the last one. */
  catchUp(): void {
    this.stream.catchUp();
  }

  stop(): void {
    this.stream.stop();
    this.ahead.clear();
  }
}
