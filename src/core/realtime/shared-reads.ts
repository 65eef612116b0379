/** One read that several callers share. */
export interface SharedRead<V> {
  /** Whether the read was sent: whatever happened before then is in its answer. */
  readonly started: boolean;
  readonly value: Promise<V>;
}

class PendingRead<V> implements SharedRead<V> {
  started = false;
  readonly value: Promise<V>;

  constructor(after: Promise<unknown>, start: () => Promise<V>) {
    this.value = after.then(nextTurn).then(() => {
      this.started = true;
      return start();
    });
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const settled = (read: Promise<unknown>) =>
  read.then(
    () => undefined,
    () => undefined,
  );

/**
 * Reads of one thing (a room's state) asked for by many callers at once, shared: a read starts in the turn
 * after the first ask, and not before the key's previous read has answered; every ask made before it starts
 * gets its answer (or its error). An ask never gets a read that started before the ask, so it sees
 * everything that happened before it asked, as a read of its own would. A crowd joining one room then costs
 * a couple of reads instead of one per join, and the database serves everyone else meanwhile.
 */
export class SharedReads<K, V> {
  /** The read each key's next asks share, until it starts. */
  private readonly pending = new Map<K, PendingRead<V>>();
  /** The key's read that has started and not yet answered. */
  private readonly running = new Map<K, Promise<unknown>>();

  /** The read this ask shares: `start` is used if the ask is the first of its read. */
  ask(key: K, start: () => Promise<V>): SharedRead<V> {
    const waiting = this.pending.get(key);
    if (waiting !== undefined) return waiting;
    const previous = this.running.get(key);
    const read = new PendingRead(previous === undefined ? Promise.resolve() : settled(previous), () => {
      this.pending.delete(key);
      const value = start();
      const done = settled(value).then(() => {
        if (this.running.get(key) === done) this.running.delete(key);
      });
      this.running.set(key, done);
      return value;
    });
    this.pending.set(key, read);
    return read;
  }

  /** `ask(key, start).value`. */
  read(key: K, start: () => Promise<V>): Promise<V> {
    return this.ask(key, start).value;
  }
}
