import { type Clock, systemClock } from '../clock.ts';
import type { JsonObject } from './json.ts';
import { type ErrorReporter, ignoreErrors, ListenerSet } from './listeners.ts';
import type { RoomKey } from './names.ts';
import {
  checkPresenceIds,
  compareMembers,
  DEFAULT_PRESENCE_TTL_MS,
  type ExpiredLeave,
  type PresenceJoin,
  type PresenceMember,
  type PresenceStore,
  presenceTimings,
} from './presence.ts';
import { repeat } from './repeat.ts';

export interface PresenceStoreOptions {
  instanceId: string;
  clock?: Clock;
  ttlMs?: number;
  report?: ErrorReporter;
}

/**
 * What every presence store does the same way, whatever holds the members: the heartbeat and sweep loops
 * on the injected clock, the expired-leave and eviction listeners, and noticing an eviction (this
 * instance registered anew after it had been registered, so it was swept as dead in between).
 */
/** A connection joining a room's presence, as a store adds it. */
export interface PresenceEntry {
  room: RoomKey;
  actor: string;
  connectionId: string;
  state: JsonObject | undefined;
}

export abstract class PresenceStoreBase implements PresenceStore {
  readonly instanceId: string;
  protected readonly clock: Clock;
  protected readonly timings: ReturnType<typeof presenceTimings>;
  protected readonly report: ErrorReporter;
  private readonly expiredLeaves: ListenerSet<[ExpiredLeave]>;
  private readonly evictions: ListenerSet<[]>;
  private stopLoops: (() => void)[] = [];
  private registered = false;

  constructor(options: PresenceStoreOptions) {
    this.instanceId = options.instanceId;
    this.clock = options.clock ?? systemClock;
    this.timings = presenceTimings(options.ttlMs ?? DEFAULT_PRESENCE_TTL_MS);
    this.report = options.report ?? ignoreErrors;
    this.expiredLeaves = new ListenerSet(this.report, 'presence expired-leave listener');
    this.evictions = new ListenerSet(this.report, 'presence eviction listener');
  }

  abstract leave(room: RoomKey, actor: string, connectionId: string): Promise<boolean>;
  abstract update(room: RoomKey, actor: string, state: JsonObject): Promise<PresenceMember | undefined>;
  abstract heartbeat(): Promise<void>;
  /** Adds the connection (its ids are checked). */
  protected abstract add(entry: PresenceEntry): Promise<PresenceJoin>;
  /** The room's members, in any order. */
  protected abstract members(room: RoomKey): Promise<PresenceMember[]>;
  /** Removes dead instances' connections from the store; `sweep` announces them. */
  protected abstract expire(): Promise<ExpiredLeave[]>;
  /** Releases what the store holds besides the loops and listeners (a connection). */
  protected async release(): Promise<void> {}

  async join(room: RoomKey, actor: string, connectionId: string, state?: JsonObject): Promise<PresenceJoin> {
    checkPresenceIds(actor, connectionId);
    return this.add({ room, actor, connectionId, state });
  }

  async list(room: RoomKey): Promise<PresenceMember[]> {
    return (await this.members(room)).sort(compareMembers);
  }

  async sweep(): Promise<ExpiredLeave[]> {
    const leaves = await this.expire();
    for (const leave of leaves) this.expiredLeaves.emit(leave);
    return leaves;
  }

  start(): void {
    if (this.stopLoops.length > 0) return;
    this.heartbeat().catch((error: unknown) => this.report(error, 'presence heartbeat'));
    this.stopLoops = [
      repeat(this.clock, this.timings.beatEveryMs, () => this.heartbeat(), this.report, 'presence heartbeat'),
      repeat(this.clock, this.timings.sweepEveryMs, () => this.sweep(), this.report, 'presence sweep'),
    ];
  }

  onExpiredLeave(listener: (leave: ExpiredLeave) => unknown): () => void {
    return this.expiredLeaves.add(listener);
  }

  onEvicted(listener: () => unknown): () => void {
    return this.evictions.add(listener);
  }

  async close(): Promise<void> {
    for (const stop of this.stopLoops) stop();
    this.stopLoops = [];
    this.expiredLeaves.clear();
    this.evictions.clear();
    await this.release();
  }

  /** After a heartbeat: `newlyRegistered` is whether the store had no live registration of this instance. */
  protected noteRegistration(newlyRegistered: boolean): void {
    if (newlyRegistered && this.registered) this.evictions.emit();
    this.registered = true;
  }
}
