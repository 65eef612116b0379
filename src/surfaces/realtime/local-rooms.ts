import type { RoomKey } from '../../core/realtime/index.ts';
import { LocalRoom, type LocalRoomDeps } from './local-room.ts';
import type { RoomMembership } from './membership.ts';

interface Entry {
  room: LocalRoom;
  opened: Promise<void>;
}

/** The rooms this instance has sockets in: a room is subscribed while it has at least one member here. */
export class LocalRooms {
  private readonly rooms = new Map<RoomKey, Entry>();

  constructor(private readonly deps: LocalRoomDeps) {}

  /** Adds the membership to its room, subscribing first if it is the room's first here. */
  async attach(tenantId: string, membership: RoomMembership): Promise<void> {
    let entry = this.rooms.get(membership.key);
    if (entry === undefined) {
      const room = new LocalRoom(tenantId, membership.roomId, this.deps);
      entry = { room, opened: room.open() };
      this.rooms.set(membership.key, entry);
    }
    entry.room.members.add(membership);
    try {
      await entry.opened;
    } catch (error) {
      this.detach(membership);
      throw error;
    }
  }

  detach(membership: RoomMembership): void {
    const entry = this.rooms.get(membership.key);
    if (entry === undefined || !entry.room.members.delete(membership)) return;
    if (entry.room.members.size > 0) return;
    this.rooms.delete(membership.key);
    entry.room.close();
  }

  /** The connections in the room on this instance (joining ones included). */
  memberCount(key: RoomKey): number {
    return this.rooms.get(key)?.room.members.size ?? 0;
  }

  all(): LocalRoom[] {
    return [...this.rooms.values()].map((entry) => entry.room);
  }
}
