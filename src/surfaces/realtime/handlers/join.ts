import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import { roomKey } from '../../../core/realtime/index.ts';
import {
  changeOfMessage,
  type RoomPosition,
  roomPosition,
} from '../../../modules/chat/verbs/room-position.ts';
import { checkStateSize, memberView } from '../../../modules/presence/member.ts';
import type { Connection } from '../connection.ts';
import { FrameRefused } from '../frame-errors.ts';
import { encode } from '../frames.ts';
import type { Gateway } from '../gateway.ts';
import { RoomMembership } from '../membership.ts';
import { type JoinFrame, jsonState } from '../protocol.ts';
import { replayMissed } from '../replay.ts';
import { joinPresence } from './join-presence.ts';
import { assertMayEnter, assertRoomExists, notMintedFor } from './room-checks.ts';

/**
 * Where a join resumes: after the client's `changeSeq`, else after the change that created its last message
 * `seq` (it had every change up to that one), else from now. A number the room has not reached is refused.
 */
async function resumePoint(
  ctx: ServiceContext,
  frame: Static<typeof JoinFrame>,
  latest: RoomPosition,
): Promise<number> {
  const { room, seq, changeSeq } = frame;
  if (seq !== undefined && seq > latest.seq) {
    throw new InvalidRequest(`room ${room} has no message ${seq} yet; its newest is ${latest.seq}`, [
      { field: '/frame/seq', message: `must be at most ${latest.seq}`, code: 'unknown_seq' },
    ]);
  }
  if (changeSeq !== undefined && changeSeq > latest.changeSeq) {
    throw new InvalidRequest(
      `room ${room} has no change ${changeSeq} yet; its newest is ${latest.changeSeq}`,
      [{ field: '/frame/changeSeq', message: `must be at most ${latest.changeSeq}`, code: 'unknown_change' }],
    );
  }
  if (changeSeq !== undefined) return changeSeq;
  if (seq !== undefined) return changeOfMessage(ctx, room, seq);
  return latest.changeSeq;
}

/**
 * Enters a room: subscribe first, then read where the room stands, so nothing published in between is
 * missed. The client gets `joined` (members, newest seq and changeSeq), then — when it resumes — every
 * chat change it missed from the database, then live frames, each change exactly once and in order.
 */
export async function handleJoin(
  gateway: Gateway,
  connection: Connection,
  frame: Static<typeof JoinFrame>,
): Promise<void> {
  const { room } = frame;
  assertMayEnter(connection, room);
  if (frame.presence !== undefined) {
    if (!connection.can.presenceWrite) throw notMintedFor('presence');
    checkStateSize(jsonState(frame.presence), '/frame/presence');
  }
  if (connection.memberships.has(room)) throw new FrameRefused('already_joined', `already in room ${room}`);
  if (connection.memberships.size >= gateway.limits.maxRoomsPerConnection) {
    throw new FrameRefused(
      'too_many_rooms',
      `at most ${gateway.limits.maxRoomsPerConnection} rooms per connection`,
    );
  }
  const ctx = gateway.context(connection);
  await assertRoomExists(ctx, room);
  const enabled = await ctx.enablement.enabledModules(ctx.tenantId);
  const { tenantId } = connection.session;
  const membership = new RoomMembership(
    room,
    roomKey(tenantId, room),
    connection,
    gateway.limits.maxHeldFrames,
  );
  connection.memberships.set(room, membership);
  try {
    await gateway.rooms.attach(tenantId, membership);
    if (connection.can.presenceWrite && enabled.has('presence')) {
      const member = await joinPresence(gateway, connection, membership, frame.presence);
      if (member.announce !== undefined) {
        await gateway.publish(tenantId, room, { k: 'presence', op: member.announce, member: member.view });
      }
    }
    const members =
      connection.can.presenceRead && enabled.has('presence')
        ? (await gateway.backplane.presence.list(membership.key)).map(memberView)
        : [];
    const latest = await roomPosition(ctx, room);
    membership.lastChange = await resumePoint(ctx, frame, latest);
    connection.send(
      encode({
        type: 'joined',
        room,
        members,
        seq: latest.seq,
        changeSeq: latest.changeSeq,
        ...(frame.ref === undefined ? {} : { ref: frame.ref }),
      }),
    );
    if (connection.can.chatRead && membership.lastChange < latest.changeSeq)
      await replayMissed(gateway, connection, membership);
    membership.goLive();
  } catch (error) {
    await gateway
      .leave(connection, membership)
      .catch((e: unknown) => gateway.report(e, 'realtime join undo'));
    throw error;
  }
}
