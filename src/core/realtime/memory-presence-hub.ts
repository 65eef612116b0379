import type { JsonObject } from './json.ts';
import type { RoomKey } from './names.ts';
import type { ExpiredLeave, PresenceMember } from './presence.ts';

interface MemberRecord {
  state: JsonObject;
  joinedAt: number;
  updatedAt: number;
  /** connection id -> instance id holding it */
  connections: Map<string, string>;
}

function snapshot(actor: string, record: MemberRecord): PresenceMember {
  return {
    actor,
    state: structuredClone(record.state),
    joinedAt: record.joinedAt,
    updatedAt: record.updatedAt,
    connections: record.connections.size,
  };
}

/**
 * Shared presence state for MemoryPresence stores, standing in for Redis: one per process in embedded
 * mode, shared by several stores in tests. Every method is synchronous, hence atomic like a Lua script.
 */
export class MemoryPresenceHub {
  private readonly rooms = new Map<RoomKey, Map<string, MemberRecord>>();
  private readonly lastBeatAt = new Map<string, number>();

  /** Returns true when the instance was not registered (first beat, or it had been swept). */
  beat(instanceId: string, now: number): boolean {
    const wasKnown = this.lastBeatAt.has(instanceId);
    this.lastBeatAt.set(instanceId, now);
    return !wasKnown;
  }

  join(
    room: RoomKey,
    actor: string,
    connectionId: string,
    instanceId: string,
    state: JsonObject | undefined,
    now: number,
  ): { joined: boolean; member: PresenceMember } {
    let members = this.rooms.get(room);
    if (members === undefined) {
      members = new Map();
      this.rooms.set(room, members);
    }
    let record = members.get(actor);
    const joined = record === undefined;
    if (record === undefined) {
      record = { state: structuredClone(state ?? {}), joinedAt: now, updatedAt: now, connections: new Map() };
      members.set(actor, record);
    } else if (state !== undefined) {
      record.state = structuredClone(state);
      record.updatedAt = now;
    }
    record.connections.set(connectionId, instanceId);
    return { joined, member: snapshot(actor, record) };
  }

  leave(room: RoomKey, actor: string, connectionId: string): boolean {
    const members = this.rooms.get(room);
    const record = members?.get(actor);
    if (members === undefined || record === undefined || !record.connections.delete(connectionId))
      return false;
    if (record.connections.size > 0) return false;
    members.delete(actor);
    if (members.size === 0) this.rooms.delete(room);
    return true;
  }

  update(room: RoomKey, actor: string, state: JsonObject, now: number): PresenceMember | undefined {
    const record = this.rooms.get(room)?.get(actor);
    if (record === undefined) return undefined;
    record.state = structuredClone(state);
    record.updatedAt = now;
    return snapshot(actor, record);
  }

  list(room: RoomKey): PresenceMember[] {
    const members = this.rooms.get(room);
    if (members === undefined) return [];
    return [...members].map(([actor, record]) => snapshot(actor, record));
  }

  /** Forgets instances silent for `aliveForMs` and their connections; reports members left with none. */
  sweep(now: number, aliveForMs: number): ExpiredLeave[] {
    const dead = new Set(
      [...this.lastBeatAt].filter(([, beatAt]) => now >= beatAt + aliveForMs).map(([id]) => id),
    );
    if (dead.size === 0) return [];
    for (const id of dead) this.lastBeatAt.delete(id);
    const leaves: ExpiredLeave[] = [];
    for (const [room, members] of this.rooms) {
      for (const [actor, record] of members) {
        let lastHolder: string | undefined;
        for (const [connectionId, holder] of record.connections) {
          if (!dead.has(holder)) continue;
          record.connections.delete(connectionId);
          lastHolder = holder;
        }
        if (lastHolder !== undefined && record.connections.size === 0) {
          members.delete(actor);
          leaves.push({ room, actor, instanceId: lastHolder });
        }
      }
      if (members.size === 0) this.rooms.delete(room);
    }
    return leaves;
  }
}
