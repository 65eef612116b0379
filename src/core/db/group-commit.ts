/**
 * Group commit for hot keys (a room's messages, an auction's bids): writes to one key that arrive while
 * the key's previous transaction is committing wait in this process, and the next transaction writes all
 * of them, in arrival order. A busy key then costs one transaction per group instead of one per write,
 * whose row lock (held until commit) would otherwise cap the key at one write per few round trips.
 */
export interface GroupWriter<Item, Result> {
  /** Writes a group of one key in one transaction; one result per item, in the items' order. */
  writeGroup(items: readonly Item[]): Promise<Result[]>;
  /**
   * Writes an item on its own: every item of a group of one, and each item of a group that failed in a
   * way one item may have caused (see `isolates`). Default: `writeGroup([item])`.
   */
  writeOne?(item: Item): Promise<Result>;
  /**
   * Whether a group's error may be one item's fault (a constraint it broke): then the group's items are
   * written one by one, so only that item gets the error. Any other error fails the whole group.
   */
  isolates?(error: unknown): boolean;
  /** At most this many items in one transaction (default 64). */
  maxGroup?: number;
}

interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** One kind of hot write: its queues per key, drained by one writer at a time per key. */
export class GroupCommitQueue<Item, Result> {
  private readonly queues = new Map<string, Pending<Item, Result>[]>();
  /** Groups formed and the items they carried, since start (for benches and operators). */
  readonly written = { groups: 0, items: 0 };

  constructor(
    private readonly writer: GroupWriter<Item, Result>,
    /** Told each group's size as it forms (the app's metrics). */
    private readonly onGroup?: (size: number) => void,
  ) {}

  /** Queues `item` behind the key's writes in flight; settles with its own result or error. */
  submit(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const pending = { item, resolve, reject };
      const queue = this.queues.get(key);
      if (queue !== undefined) {
        queue.push(pending);
        return;
      }
      const fresh = [pending];
      this.queues.set(key, fresh);
      void this.drain(key, fresh);
    });
  }

  /** How many writes to `key` wait for its transaction in flight (those it is writing not counted). */
  waiting(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }

  /** Writes a key's queue group by group until it is empty. */
  private async drain(key: string, queue: Pending<Item, Result>[]): Promise<void> {
    const max = this.writer.maxGroup ?? 64;
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, max);
        this.written.groups += 1;
        this.written.items += group.length;
        this.onGroup?.(group.length);
        if (group.length > 1 && (await this.writeTogether(group))) continue;
        for (const pending of group)
          await this.writeAlone(pending.item).then(pending.resolve, pending.reject);
      }
    } finally {
      this.queues.delete(key);
    }
  }

  /** True when the group is settled; false when its items must be written one by one. */
  private async writeTogether(group: Pending<Item, Result>[]): Promise<boolean> {
    let results: Result[];
    try {
      results = await this.writer.writeGroup(group.map((p) => p.item));
    } catch (error) {
      if (this.writer.isolates?.(error) === true) return false;
      for (const pending of group) pending.reject(error);
      return true;
    }
    for (const [i, pending] of group.entries()) {
      if (i < results.length) pending.resolve(results[i] as Result);
      else pending.reject(new Error('a queued write got no result from its group'));
    }
    return true;
  }

  private async writeAlone(item: Item): Promise<Result> {
    if (this.writer.writeOne !== undefined) return this.writer.writeOne(item);
    const [result] = await this.writer.writeGroup([item]);
    if (result === undefined) throw new Error('a write got no result');
    return result;
  }
}

/**
 * The app's group-commit queues by name, one per kind of hot write (`chat.send`, `auctions.bid`). Held by
 * the app, so two apps in one process (tests, several instances) never share a queue.
 */
export class GroupCommits {
  private readonly queues = new Map<string, GroupCommitQueue<never, unknown>>();

  /** `onGroup`: told each group's queue name and size as it forms (the app's metrics). */
  constructor(private readonly onGroup?: (queue: string, size: number) => void) {}

  /** The queue named `name`, made with `writer` on first use. */
  queue<Item, Result>(name: string, writer: GroupWriter<Item, Result>): GroupCommitQueue<Item, Result> {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      const onGroup = this.onGroup;
      queue = new GroupCommitQueue(
        writer,
        onGroup === undefined ? undefined : (size) => onGroup(name, size),
      ) as unknown as GroupCommitQueue<never, unknown>;
      this.queues.set(name, queue);
    }
    return queue as unknown as GroupCommitQueue<Item, Result>;
  }

  /** Groups and items written so far by the queue named `name` (zeros before its first write). */
  written(name: string): { groups: number; items: number } {
    return { ...(this.queues.get(name)?.written ?? { groups: 0, items: 0 }) };
  }

  /** How many writes of kind `name` to `key` wait for the key's transaction in flight. */
  waiting(name: string, key: string): number {
    return this.queues.get(name)?.waiting(key) ?? 0;
  }
}
