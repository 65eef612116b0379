import { Type } from 'typebox';
import { AppError } from '../../core/http/errors.ts';
import {
  defineFrame,
  defineJoin,
  FrameRefused,
  type RealtimeConnection,
  type RealtimeHooks,
  type RealtimeHost,
  type RealtimeMembership,
  RoomField,
  type RoomMessage,
} from '../../core/realtime/contributions.ts';
import type { JsonObject } from '../../core/realtime/index.ts';
import { type Actor, actorView } from '../../core/tenancy/actors.ts';
import { expiredLeaveMessage } from './leave.ts';
import { checkStateSize, type MemberView, memberView, presenceRecord } from './member.ts';
import { MemberLists } from './member-lists.ts';
import { type DiffTick, endOfTurn, mayRead, PresenceRooms } from './presence-room.ts';
import { PresenceState } from './schema.ts';

/** Presence's own realtime knobs; tests hold the diff tick to see what one tick folds. */
export interface PresenceRealtimeOptions {
  /** When a room's collected changes go out as one `presence.diff` (default: the end of the turn). */
  diffTick: DiffTick;
}

/** What presence publishes on a room's channel. */
type PresenceMessage = RoomMessage &
  (
    | { k: 'presence'; op: 'join' | 'update'; member: MemberView }
    | { k: 'presence'; op: 'leave'; actor: Actor }
  );

/** A state from a checked frame: it came out of JSON.parse, so it is JSON all the way down. */
function jsonState(state: object): JsonObject {
  return state as JsonObject;
}

const mayWrite = (connection: RealtimeConnection) => connection.may('presence', 'presence:write');

/**
 * Presence on the realtime gateway: a join with a `presence:write` token (and presence on) makes the
 * connection a member of the room's presence, one member per actor however many tabs; `joined` lists the
 * members; `presence` frames replace the actor's state; every member sees `presence.join`, `.update`,
 * `.leave`, or one `presence.diff` per tick if its join asked for it (`presenceDiff`). Members of
 * instances that died expire; an instance taken for dead rejoins its connections.
 */
export function presenceRealtime(options: Partial<PresenceRealtimeOptions> = {}): RealtimeHooks {
  const settings: PresenceRealtimeOptions = { diffTick: endOfTurn, ...options };
  const rooms = new PresenceRooms(settings.diffTick);
  /** The client's state, for each connection that is a presence member of a room. */
  const states = new WeakMap<RealtimeMembership, JsonObject>();
  const lists = new MemberLists();

  const publish = (host: RealtimeHost, membership: RealtimeMembership, message: PresenceMessage) =>
    host.publish(membership.connection.session.tenantId, membership.roomId, message);

  /**
   * Adds the connection to the actor's presence in the room. A tab that joins without a state keeps the
   * state the actor's other tabs set; a new member without one starts with `{}`. Announces `join` for a
   * new member, `update` when the state was replaced, nothing for another tab of a member.
   */
  async function enterPresence(
    host: RealtimeHost,
    membership: RealtimeMembership,
    given: object | undefined,
  ): Promise<void> {
    const { actor } = membership.connection.session;
    const record = presenceRecord(actor, jsonState(given ?? {}));
    let { joined, member } = await host.presence.join(
      membership.key,
      actor.id,
      membership.connection.id,
      given === undefined ? undefined : record,
    );
    // A new member must carry who it is, which only the full record holds.
    if (joined && given === undefined)
      member = (await host.presence.update(membership.key, actor.id, record)) ?? member;
    const view = memberView(member);
    states.set(membership, jsonState(view.state));
    const announce = joined ? 'join' : given === undefined ? undefined : 'update';
    if (announce !== undefined)
      await publish(host, membership, { k: 'presence', op: announce, member: view });
  }

  const join = defineJoin({
    fields: { presence: Type.Optional(PresenceState), presenceDiff: Type.Optional(Type.Boolean()) },
    check(connection, frame) {
      if (frame.presence === undefined) return;
      if (!mayWrite(connection)) {
        throw new AppError('insufficient_scope', 'this session token was not minted for the presence module');
      }
      checkStateSize(jsonState(frame.presence), '/frame/presence');
    },
    async enter(host, membership, frame, tenant) {
      // Before its own join is announced: the connection hears it, as every change after its list read.
      const room = rooms.of(membership);
      room?.listen(membership, frame.presenceDiff === true);
      const on = tenant.isEnabled('presence');
      if (on && mayWrite(membership.connection)) await enterPresence(host, membership, frame.presence);
      const read =
        on && mayRead(membership.connection) ? lists.read(host.presence, membership.key) : undefined;
      room?.listenFrom(membership, read);
      return { members: read === undefined ? [] : await read.list };
    },
    /** The actor stays a member while another of its connections is still in the room. */
    async leave(host, membership) {
      rooms.of(membership)?.forget(membership);
      if (!states.has(membership)) return;
      states.delete(membership);
      const { actor } = membership.connection.session;
      const last = await host.presence.leave(membership.key, actor.id, membership.connection.id);
      if (last) await publish(host, membership, { k: 'presence', op: 'leave', actor: actorView(actor) });
    },
  });

  /** `presence`: replaces the actor's state in a room (shared by all its tabs) and tells the room. */
  const presenceFrame = defineFrame({
    type: 'presence',
    fields: { room: RoomField, state: PresenceState },
    access: { module: 'presence', scope: 'presence:write' },
    async handle(host, connection, frame) {
      const membership = host.membershipIn(connection, frame.room);
      const state = jsonState(frame.state);
      checkStateSize(state, '/frame/state');
      if (!states.has(membership)) {
        throw new FrameRefused(
          'not_joined',
          `not a presence member of room ${frame.room} (presence is disabled)`,
        );
      }
      const { actor } = connection.session;
      const member = await host.presence.update(membership.key, actor.id, presenceRecord(actor, state));
      states.set(membership, state);
      if (member === undefined) return;
      await publish(host, membership, { k: 'presence', op: 'update', member: memberView(member) });
    },
  });

  /**
   * This instance was taken for dead (an event-loop stall longer than the presence expiry) and its members
   * were removed: join its live connections again and announce those that became members anew.
   */
  async function rejoin(host: RealtimeHost): Promise<void> {
    for (const connection of host.connections()) {
      const { actor } = connection.session;
      for (const membership of connection.memberships.values()) {
        const state = states.get(membership);
        if (state === undefined) continue;
        try {
          const joined = await host.presence.join(
            membership.key,
            actor.id,
            connection.id,
            presenceRecord(actor, state),
          );
          if (joined.joined) {
            await publish(host, membership, { k: 'presence', op: 'join', member: memberView(joined.member) });
          }
        } catch (error) {
          host.report(error, 'realtime presence rejoin');
        }
      }
    }
  }

  return {
    frames: [presenceFrame],
    join,
    roomMessages: ['presence'],
    room: (host, room) => rooms.open(host, room),
    start: (host) => [
      host.presence.onExpiredLeave(async (leave) => {
        const message = await expiredLeaveMessage(host, leave);
        // A room's presence key is its channel name.
        if (message !== undefined) await host.pubsub.publish(leave.room, { ...message });
      }),
      host.presence.onEvicted(() => rejoin(host)),
    ],
  };
}
