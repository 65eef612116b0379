import { type Clock, systemClock } from '../clock.ts';
import type { JsonObject } from './json.ts';
import { type ErrorReporter, ignoreErrors, ListenerSet } from './listeners.ts';
import { MemoryPresenceHub } from './memory-presence-hub.ts';
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

export interface MemoryPresenceOptions {
  instanceId: string;
  hub?: MemoryPresenceHub;
  clock?: Clock;
  ttlMs?: number;
  report?: ErrorReporter;
}

/** Presence in process memory: the embedded deployment, and the reference the Redis store must match. */
export class MemoryPresence implements PresenceStore {
  readonly instanceId: string;
  private readonly hub: MemoryPresenceHub;
  private readonly clock: Clock;
  private readonly timings: ReturnType<typeof presenceTimings>;
  private readonly report: ErrorReporter;
  private readonly expiredLeaves: ListenerSet<[ExpiredLeave]>;
  private readonly evictions: ListenerSet<[]>;
  private stopLoops: (() => void)[] = [];
  private registered = false;

  constructor(options: MemoryPresenceOptions) {
    this.instanceId = options.instanceId;
    this.hub = options.hub ?? new MemoryPresenceHub();
    this.clock = options.clock ?? systemClock;
    this.timings = presenceTimings(options.ttlMs ?? DEFAULT_PRESENCE_TTL_MS);
    this.report = options.report ?? ignoreErrors;
    this.expiredLeaves = new ListenerSet(this.report, 'presence expired-leave listener');
    this.evictions = new ListenerSet(this.report, 'presence eviction listener');
  }

  async join(room: RoomKey, actor: string, connectionId: string, state?: JsonObject): Promise<PresenceJoin> {
    checkPresenceIds(actor, connectionId);
    this.beat();
    return this.hub.join(room, actor, connectionId, this.instanceId, state, this.clock.now());
  }

  async leave(room: RoomKey, actor: string, connectionId: string): Promise<boolean> {
    return this.hub.leave(room, actor, connectionId);
  }

  async update(room: RoomKey, actor: string, state: JsonObject): Promise<PresenceMember | undefined> {
    return this.hub.update(room, actor, state, this.clock.now());
  }

  async list(room: RoomKey): Promise<PresenceMember[]> {
    return this.hub.list(room).sort(compareMembers);
  }

  async heartbeat(): Promise<void> {
    this.beat();
  }

  async sweep(): Promise<ExpiredLeave[]> {
    const leaves = this.hub.sweep(this.clock.now(), this.timings.aliveForMs);
    for (const leave of leaves) this.expiredLeaves.emit(leave);
    return leaves;
  }

  start(): void {
    if (this.stopLoops.length > 0) return;
    this.beat();
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
  }

  private beat(): void {
    const newlyRegistered = this.hub.beat(this.instanceId, this.clock.now());
    if (newlyRegistered && this.registered) this.evictions.emit();
    this.registered = true;
  }
}
