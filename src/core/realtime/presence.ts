import type { JsonObject } from './json.ts';
import type { RoomKey } from './names.ts';

export interface PresenceMember {
  actor: string;
  state: JsonObject;
  /** Epoch ms (from the injected clock) of the join that made the actor a member. */
  joinedAt: number;
  updatedAt: number;
  /** Open connections of this actor in this room, across all instances (tabs, devices). */
  connections: number;
}

export interface PresenceJoin {
  /** True when this connection made the actor a member (broadcast `presence.join`). */
  joined: boolean;
  member: PresenceMember;
}

/** A member removed because the instance holding its last connection stopped heartbeating. */
export interface ExpiredLeave {
  room: RoomKey;
  actor: string;
  /** The dead instance, for logs. */
  instanceId: string;
}

/**
 * Room membership per actor. A member exists while it has at least one connection; connections belong to
 * the instance that accepted them. Each instance heartbeats; when one stops, any instance's sweep removes
 * its connections, and exactly one sweeper reports each member that thereby left (`onExpiredLeave`).
 */
export interface PresenceStore {
  readonly instanceId: string;
  /**
   * Adds a connection. `state` replaces the member's state when given (a new tab may announce itself);
   * a new member without state starts with `{}`. Joining with a known connection id changes no count.
   */
  join(room: RoomKey, actor: string, connectionId: string, state?: JsonObject): Promise<PresenceJoin>;
  /** Removes a connection; true when it was the actor's last one (broadcast `presence.leave`). */
  leave(room: RoomKey, actor: string, connectionId: string): Promise<boolean>;
  /** Replaces the member's state; undefined when the actor is not a member. */
  update(room: RoomKey, actor: string, state: JsonObject): Promise<PresenceMember | undefined>;
  /** Members ordered by joinedAt, then actor. */
  list(room: RoomKey): Promise<PresenceMember[]>;
  /** Proves this instance alive; `start()` calls it on a timer. */
  heartbeat(): Promise<void>;
  /** Removes dead instances' connections now; `start()` calls it on a timer. Returns what it expired. */
  sweep(): Promise<ExpiredLeave[]>;
  /** Starts heartbeating and sweeping on the injected clock. */
  start(): void;
  onExpiredLeave(listener: (leave: ExpiredLeave) => unknown): () => void;
  /**
   * This instance was swept as dead (e.g. an event-loop stall longer than the expiry) and has just
   * heartbeated again: its connections are no longer members. The gateway should join them again.
   */
  onEvicted(listener: () => unknown): () => void;
  /** Stops the timers. Membership stays until the connections leave or this instance expires. */
  close(): Promise<void>;
}

export const DEFAULT_PRESENCE_TTL_MS = 30_000;

/**
 * Timings derived from one bound, `ttlMs`: a dead instance's members are announced as left at most
 * `ttlMs` after its last heartbeat. Liveness lasts 2/3 of it (three missed beats); a sweep every 1/6
 * then adds at most 1/6. Heartbeats every 1/6 keep liveness through short stalls.
 */
export function presenceTimings(ttlMs: number): {
  beatEveryMs: number;
  aliveForMs: number;
  sweepEveryMs: number;
} {
  if (!Number.isFinite(ttlMs) || ttlMs < 60) throw new RangeError(`presence ttlMs too small: ${ttlMs}`);
  return {
    beatEveryMs: Math.floor(ttlMs / 6),
    aliveForMs: Math.floor((ttlMs * 2) / 3),
    sweepEveryMs: Math.floor(ttlMs / 6),
  };
}

export function compareMembers(a: PresenceMember, b: PresenceMember): number {
  return a.joinedAt - b.joinedAt || (a.actor < b.actor ? -1 : a.actor > b.actor ? 1 : 0);
}

/** Actor and connection ids become parts of Redis keys and set entries: keep them short and non-empty. */
export function checkPresenceIds(actor: string, connectionId: string): void {
  for (const [kind, value] of [
    ['actor', actor],
    ['connectionId', connectionId],
  ] as const) {
    if (value.length === 0 || value.length > 256)
      throw new RangeError(`presence ${kind} must be 1 to 256 chars`);
  }
}
