import type { Clock } from '../../core/clock.ts';
import {
  type EncodedFrame,
  encodeFrame,
  type ModuleRoom,
  type RealtimeConnection,
  type RealtimeHost,
  type RealtimeMembership,
  type RealtimeRoom,
} from '../../core/realtime/contributions.ts';
import { type JsonObject, type RoomKey, roomKey } from '../../core/realtime/index.ts';
import { isJsonObject } from '../../core/realtime/json.ts';
import { type PresenceChange, PresenceDiff } from './diff.ts';
import { actorOfMember } from './leave.ts';

/** Schedules the flush of a room's tick of presence changes (one `presence.diff`). */
export type DiffTick = (flush: () => void, clock: Clock) => void;

/**
 * The end of the turn: a diff holds what the room's channel delivered before the event loop next gets to
 * its immediates (a crowd's joins arriving in one read from Redis, or paced by the gateway, go together).
 * A 5 ms timer of the clock was measured against it (bench:fanout's crowd on PostgreSQL and Redis, two
 * pairs): no fewer bytes or faster joins, and it would hold every change of a quiet room back 5 ms.
 */
export const endOfTurn: DiffTick = (flush) => {
  setImmediate(flush);
};

export const mayRead = (connection: RealtimeConnection) => connection.may('presence', 'presence:read');

/** Has the read of the member list that a `joined` frame carries started? */
export interface ListRead {
  readonly started: boolean;
}

/** Listening from the start: a connection that reads no member list (presence off for the tenant). */
const NO_LIST: ListRead = { started: true };

function singleFrame(roomId: string, change: PresenceChange): EncodedFrame {
  if (change.op === 'leave')
    return encodeFrame({ type: 'presence.leave', room: roomId, actor: change.actor });
  return encodeFrame({ type: `presence.${change.op}`, room: roomId, member: change.member });
}

/**
 * Presence's part of one room on this instance. Its listeners are the room's connections whose token
 * reads presence, from their join's `enter` on (a change received before a join entered is in the member
 * list its `joined` carries: the list is read after). Those that did not ask for diffs get each change at
 * once as `presence.join`, `.update` or `.leave`; the others get the changes of a tick folded into one
 * `presence.diff` (see PresenceDiff), encoded once. A diff flushed before a connection's own list read
 * started holds only what that list has, so it is not sent to it.
 */
class PresenceRoom implements ModuleRoom {
  private readonly singles = new Set<RealtimeMembership>();
  /** Members that asked for diffs, with the list read their diffs start after. */
  private readonly diffs = new Map<RealtimeMembership, ListRead | undefined>();
  private pending: PresenceDiff | undefined;
  private closed = false;

  constructor(
    private readonly host: RealtimeHost,
    private readonly room: RealtimeRoom,
    private readonly tick: DiffTick,
    private readonly onClose: () => void,
  ) {}

  /** From now on the membership gets the room's changes: in diffs once `listenFrom` names its list read. */
  listen(membership: RealtimeMembership, diff: boolean): void {
    if (!mayRead(membership.connection)) return;
    if (diff) this.diffs.set(membership, undefined);
    else this.singles.add(membership);
  }

  listenFrom(membership: RealtimeMembership, read: ListRead | undefined): void {
    if (this.diffs.has(membership)) this.diffs.set(membership, read ?? NO_LIST);
  }

  forget(membership: RealtimeMembership): void {
    this.singles.delete(membership);
    this.diffs.delete(membership);
  }

  receive(_kind: string, payload: JsonObject): void {
    const { op, actor, member } = payload;
    if (op === 'leave' && isJsonObject(actor)) {
      this.changed({ op, actor });
    } else if (op === 'leave' && typeof payload.actorId === 'string') {
      // From an instance older than issue 29: it named the member by its internal id.
      actorOfMember(this.host, this.room.tenantId, payload.actorId)
        .then((found) => {
          if (found !== undefined && !this.closed) this.changed({ op, actor: { ...found } });
        })
        .catch((error: unknown) => this.host.report(error, `room ${this.room.roomId}`));
    } else if ((op === 'join' || op === 'update') && isJsonObject(member)) {
      this.changed({ op, member });
    } else {
      this.host.report(new Error('unreadable presence message'), `room ${this.room.roomId}`);
    }
  }

  /** A diff is written once per tick whatever it holds; a change of its own frame, to each that wants one. */
  deliveries(): number {
    return this.singles.size;
  }

  close(): void {
    this.closed = true;
    this.pending = undefined;
    this.onClose();
  }

  private changed(change: PresenceChange): void {
    let single: EncodedFrame | undefined;
    for (const m of this.singles) {
      // Between leaving the room and presence's `leave`, a membership is no longer the room's.
      if (!this.room.members.has(m)) continue;
      single ??= singleFrame(this.room.roomId, change);
      m.deliver(single);
    }
    if (this.diffs.size === 0) return;
    if (this.pending === undefined) {
      this.pending = new PresenceDiff();
      this.tick(() => this.flush(), this.host.clock);
    }
    this.pending.add(change);
  }

  private flush(): void {
    const diff = this.pending;
    this.pending = undefined;
    if (this.closed || diff === undefined) return;
    let frame: EncodedFrame | undefined;
    for (const [m, read] of this.diffs) {
      if (read?.started !== true || !this.room.members.has(m)) continue;
      frame ??= encodeFrame({ ...diff.take(this.room.roomId) });
      m.deliver(frame);
    }
  }
}

/** Presence's parts of the rooms this instance has members in, by room. */
export class PresenceRooms {
  private readonly parts = new Map<RoomKey, PresenceRoom>();

  constructor(private readonly tick: DiffTick) {}

  open(host: RealtimeHost, room: RealtimeRoom): ModuleRoom {
    const key = roomKey(room.tenantId, room.roomId);
    const part: PresenceRoom = new PresenceRoom(host, room, this.tick, () => {
      if (this.parts.get(key) === part) this.parts.delete(key);
    });
    this.parts.set(key, part);
    return part;
  }

  /** The room's part, which exists from the first membership's attach until the last one left. */
  of(membership: RealtimeMembership): PresenceRoom | undefined {
    return this.parts.get(membership.key);
  }
}
