import { RawJson } from '../../core/realtime/contributions.ts';
import type { PresenceStore, RoomKey } from '../../core/realtime/index.ts';
import { memberView } from './member.ts';

/**
 * Reads of a room's member list for `joined` frames, shared by the joins that ask at the same time: a read
 * starts in the turn after the first ask, and every join that asked before it started gets its result,
 * encoded once. A crowd joining together then costs a few reads and encodings of the list instead of one
 * per join (which grew with the square of the crowd). A join asks once it is subscribed to the room and in
 * presence, and a read starts after the ask, so what a shared read misses reaches the join as `presence.*`
 * frames, as with a read of its own.
 */
export class MemberLists {
  private readonly next = new WeakMap<PresenceStore, Map<RoomKey, Promise<RawJson>>>();

  read(store: PresenceStore, room: RoomKey): Promise<RawJson> {
    let rooms = this.next.get(store);
    if (rooms === undefined) {
      rooms = new Map();
      this.next.set(store, rooms);
    }
    let read = rooms.get(room);
    if (read === undefined) {
      const pending = rooms;
      read = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => {
          // From now on an ask waits for the next read: this one may have started before its join entered.
          pending.delete(room);
          return store.list(room);
        })
        .then((members) => RawJson.of(members.map(memberView)));
      rooms.set(room, read);
    }
    return read;
  }
}
