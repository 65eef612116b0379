import type { JsonObject, JsonValue } from '../../core/realtime/index.ts';

/** One change of a room's presence as it came on the room's channel: a member, or the Actor that left. */
export type PresenceChange =
  | { op: 'join' | 'update'; member: JsonObject }
  | { op: 'leave'; actor: JsonObject };

/** The frame of the changes of one tick, for the clients that asked for them batched (`presenceDiff`). */
export interface PresenceDiffFrame {
  type: 'presence.diff';
  room: string;
  /** Members new to the room this tick, as `presence.join` carries them. */
  joins: JsonObject[];
  /** Members whose state or connections changed, as `presence.update` carries them. */
  updates: JsonObject[];
  /** Actors that left, as `presence.leave` carries them. */
  leaves: JsonObject[];
}

type Entry = { list: 'joins' | 'updates'; member: JsonObject } | { list: 'leaves'; actor: JsonObject };

function actorIdOf(value: JsonValue | undefined): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return typeof value.id === 'string' ? value.id : undefined;
}

/**
 * The presence changes of one room during one tick, folded so that each actor appears once, by its last
 * change: in `leaves` when it left last; else in `joins` when it joined during the tick (a join then an
 * update is a join with the newer state); else in `updates`. A member carries its newest state. Applying
 * the frame (remove `leaves`, replace or add `joins` and `updates`, in any order: no actor is in two
 * lists) leaves a client with the members it would have after each change's own frame, in order: a join
 * then a leave in one tick is a leave, never a member left behind.
 */
export class PresenceDiff {
  /** By actor id, in the order of each actor's last change. */
  private readonly byActor = new Map<string | JsonObject, Entry>();

  get size(): number {
    return this.byActor.size;
  }

  add(change: PresenceChange): void {
    const subject = change.op === 'leave' ? change.actor : change.member.actor;
    // A change that names no actor id (never sent by this service) is kept apart rather than dropped.
    const key = actorIdOf(subject) ?? (change.op === 'leave' ? change.actor : change.member);
    const before = this.byActor.get(key);
    this.byActor.delete(key);
    if (change.op === 'leave') this.byActor.set(key, { list: 'leaves', actor: change.actor });
    else {
      const list = change.op === 'join' || before?.list === 'joins' ? 'joins' : 'updates';
      this.byActor.set(key, { list, member: change.member });
    }
  }

  /** The frame of what was added since the last `take`, and starts over. */
  take(room: string): PresenceDiffFrame {
    const frame: PresenceDiffFrame = { type: 'presence.diff', room, joins: [], updates: [], leaves: [] };
    for (const entry of this.byActor.values()) {
      if (entry.list === 'leaves') frame.leaves.push(entry.actor);
      else if (entry.list === 'joins') frame.joins.push(entry.member);
      else frame.updates.push(entry.member);
    }
    this.byActor.clear();
    return frame;
  }
}
