import { RawJson } from '../../core/realtime/contributions.ts';
import type { PresenceStore, RoomKey } from '../../core/realtime/index.ts';
import { memberView } from './member.ts';

/** A read of a room's member list, shared by the joins that asked before it started. */
export interface MemberRead {
  /** Whether the read was sent to the store: every change received before then is in its list. */
  readonly started: boolean;
  readonly list: Promise<RawJson>;
}

class SharedRead implements MemberRead {
  started = false;
  readonly list: Promise<RawJson>;

  constructor(start: () => Promise<RawJson>) {
    this.list = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.started = true;
      return start();
    });
  }
}

/**
 * Reads of a room's member list for `joined` frames, shared by the joins that ask at the same time: a read
 * starts in the turn after the first ask, and every join that asked before it started gets its result,
 * encoded once. A crowd joining together then costs a few reads and encodings of the list instead of one
 * per join (which grew with the square of the crowd). A join asks once it is subscribed to the room and in
 * presence, and a read starts after the ask, so what a shared read misses reaches the join as `presence.*`
 * frames, as with a read of its own.
 */
export class MemberLists {
  private readonly next = new WeakMap<PresenceStore, Map<RoomKey, SharedRead>>();

  read(store: PresenceStore, room: RoomKey): MemberRead {
    let rooms = this.next.get(store);
    if (rooms === undefined) {
      rooms = new Map();
      this.next.set(store, rooms);
    }
    let read = rooms.get(room);
    if (read === undefined) {
      const pending = rooms;
      read = new SharedRead(async () => {
        // From now on an ask waits for the next read: this one may have started before its join entered.
        pending.delete(room);
        return RawJson.of((await store.list(room)).map(memberView));
      });
      rooms.set(room, read);
    }
    return read;
  }
}
