/**
 * Group commit for hot keys (a room's messages, an auction's bids): writes to one key that arrive while
 * the key's previous transaction is committing wait in this process, and the next transaction writes all
 * of them, in arrival order. A busy key then costs one transaction per group instead of one per write,
 * whose row lock (held until commit) would otherwise cap the key at one write per few round trips.
 */
export interface GroupWriter<Item, Result> {
  /**
   * Writes a group of one key in one transaction; one result per item, in the items' order. `turn` (optional
   * to use) takes the group's after-commit work, run once the key's next group went out (see `GroupTurn`).
   */
  writeGroup(items: readonly Item[], turn: GroupTurn): Promise<Result[]>;
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

/**
 * What a writer may tell the queue about the group it writes. The queue pipelines a key's groups: once a
 * group has committed, the key's next group starts writing (its first statement goes out) before the
 * committed group's after-commit work (`afterCommit`: publishing its events, the fan-out) and its answers
 * run. Both still run in group order, after-commit work before the group's answers; a group's work that
 * throws fails the group's items with that error (their rows are committed).
 */
export interface GroupTurn {
  /** Runs `work` after this group committed and the key's next group started, before its answers. */
  afterCommit(work: () => void): void;
  /** The group's statements are done and its COMMIT goes out (splits `statement` from `commit`). */
  committing(): void;
}

/** One phase's time over the groups (or items) that went through it, in milliseconds. */
export interface PhaseTime {
  count: number;
  totalMs: number;
  maxMs: number;
}

/**
 * Where a queue's time goes (for benches and operators), each phase from the one before:
 * - `wait`, per item: submitted until its group starts writing;
 * - `statement`, per group: its statements (to `committing()`, else to the write's end);
 * - `commit`, per group: from `committing()` to the write's end (zero when one statement commits itself);
 * - `handoff`, per group: committed until its fan-out starts (the next group's statement goes out first);
 * - `fanout`, per group: its after-commit work (published events) and its items' answers, run at once.
 */
export interface GroupPhases {
  wait: PhaseTime;
  statement: PhaseTime;
  commit: PhaseTime;
  handoff: PhaseTime;
  fanout: PhaseTime;
}

function eachPhase(time: (phase: keyof GroupPhases) => PhaseTime): GroupPhases {
  return {
    wait: time('wait'),
    statement: time('statement'),
    commit: time('commit'),
    handoff: time('handoff'),
    fanout: time('fanout'),
  };
}

function noPhases(): GroupPhases {
  return eachPhase(() => ({ count: 0, totalMs: 0, maxMs: 0 }));
}

function addTime(phase: PhaseTime, ms: number): void {
  phase.count += 1;
  phase.totalMs += ms;
  phase.maxMs = Math.max(phase.maxMs, ms);
}

interface Pending<Item, Result> {
  item: Item;
  at: number;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** One group's write: its after-commit work, and when its phases began. */
class Turn implements GroupTurn {
  readonly work: (() => void)[] = [];
  committingAt: number | undefined;

  constructor(
    readonly startedAt: number,
    private readonly now: () => number,
  ) {}

  afterCommit(work: () => void): void {
    this.work.push(work);
  }

  committing(): void {
    this.committingAt = this.now();
  }
}

/**
 * Runs `fn` after the promise jobs and ticks that the running job sets going: a tick, a promise job, a
 * tick. A write whose way to its statement is promise jobs and a free connection has sent it by then:
 * pg-pool hands an idle connection over on a tick, and the statement goes out in the promise job after
 * it (tried against PostgreSQL: one tick ran before the send, this after it). A write that waits for I/O
 * (a busy pool) sends later: less overlap, same order. setImmediate also waits for every socket read
 * meanwhile: 5-30 ms a group in bench:auctions under load 20-27.
 */
function afterStartingJobs(fn: () => void): void {
  process.nextTick(() => queueMicrotask(() => process.nextTick(fn)));
}

/** One kind of hot write: its queues per key, drained by one writer at a time per key. */
export class GroupCommitQueue<Item, Result> {
  private readonly queues = new Map<string, Pending<Item, Result>[]>();
  /** Groups formed and the items they carried, since start (for benches and operators). */
  readonly written = { groups: 0, items: 0 };
  /** Time per phase since start (see `GroupPhases`). */
  readonly phases = noPhases();

  constructor(
    private readonly writer: GroupWriter<Item, Result>,
    /** Told each group's size as it forms (the app's metrics). */
    private readonly onGroup?: (size: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Queues `item` behind the key's writes in flight; settles with its own result or error. */
  submit(key: string, item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const pending = { item, at: this.now(), resolve, reject };
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

  /**
   * Writes a key's queue group by group until it is empty. A committed group is settled (its after-commit
   * work, then its answers) once the next group's write started, or first when a later group settles
   * sooner: `unsettled` keeps them in order.
   */
  private async drain(key: string, queue: Pending<Item, Result>[]): Promise<void> {
    const max = this.writer.maxGroup ?? 64;
    const unsettled: (() => void)[] = [];
    const settleAll = () => {
      for (let next = unsettled.shift(); next !== undefined; next = unsettled.shift()) next();
    };
    // With a write to follow, this one settles once the jobs that start that write have run (see
    // `afterStartingJobs`); with none, at once.
    const handOff = (settle: () => void, more: boolean) => {
      unsettled.push(settle);
      if (more) afterStartingJobs(settleAll);
      else settleAll();
    };
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, max);
        this.written.groups += 1;
        this.written.items += group.length;
        this.onGroup?.(group.length);
        const turn = new Turn(this.now(), this.now);
        for (const pending of group) addTime(this.phases.wait, turn.startedAt - pending.at);
        const settle =
          group.length > 1
            ? await this.writeTogether(group, turn)
            : await this.writeAlone(group[0] as Pending<Item, Result>, turn);
        if (settle !== undefined) {
          handOff(settle, queue.length > 0);
          continue;
        }
        for (const [i, pending] of group.entries()) {
          const alone = await this.writeAlone(pending, new Turn(this.now(), this.now));
          handOff(alone, i < group.length - 1 || queue.length > 0);
        }
      }
    } finally {
      settleAll();
      this.queues.delete(key);
    }
  }

  /**
   * Writes the group; answers how to settle it once committed (or failed whole), or undefined when its
   * items must be written one by one.
   */
  private async writeTogether(group: Pending<Item, Result>[], turn: Turn): Promise<(() => void) | undefined> {
    let results: Result[];
    try {
      results = await this.writer.writeGroup(
        group.map((p) => p.item),
        turn,
      );
    } catch (error) {
      if (this.writer.isolates?.(error) === true) return undefined;
      return () => {
        for (const pending of group) pending.reject(error);
      };
    }
    return this.committed(turn, group, results);
  }

  private async writeAlone(pending: Pending<Item, Result>, turn: Turn): Promise<() => void> {
    try {
      if (this.writer.writeOne !== undefined) {
        const result = await this.writer.writeOne(pending.item);
        return this.committed(turn, [pending], [result]);
      }
      const results = await this.writer.writeGroup([pending.item], turn);
      if (results[0] === undefined) throw new Error('a write got no result');
      return this.committed(turn, [pending], results);
    } catch (error) {
      return () => pending.reject(error);
    }
  }

  /** A committed group's phases so far, and how it settles: its after-commit work, then its answers. */
  private committed(turn: Turn, group: Pending<Item, Result>[], results: Result[]): () => void {
    const committedAt = this.now();
    const committingAt = turn.committingAt ?? committedAt;
    addTime(this.phases.statement, committingAt - turn.startedAt);
    addTime(this.phases.commit, committedAt - committingAt);
    return () => {
      const fanoutAt = this.now();
      addTime(this.phases.handoff, fanoutAt - committedAt);
      try {
        for (const work of turn.work) work();
      } catch (error) {
        for (const pending of group) pending.reject(error);
        addTime(this.phases.fanout, this.now() - fanoutAt);
        return;
      }
      for (const [i, pending] of group.entries()) {
        if (i < results.length) pending.resolve(results[i] as Result);
        else pending.reject(new Error('a queued write got no result from its group'));
      }
      addTime(this.phases.fanout, this.now() - fanoutAt);
    };
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

  /** Time per phase so far of the queue named `name` (zeros before its first write); a copy. */
  phases(name: string): GroupPhases {
    const phases = this.queues.get(name)?.phases ?? noPhases();
    return eachPhase((p) => ({ ...phases[p] }));
  }

  /** How many writes of kind `name` to `key` wait for the key's transaction in flight. */
  waiting(name: string, key: string): number {
    return this.queues.get(name)?.waiting(key) ?? 0;
  }
}
