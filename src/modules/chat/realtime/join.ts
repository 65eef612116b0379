import { Type } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { InvalidRequest } from '../../../core/http/errors.ts';
import {
  defineJoin,
  type JoinContribution,
  type RealtimeMembership,
} from '../../../core/realtime/contributions.ts';
import type { RoomKey } from '../../../core/realtime/index.ts';
import { SharedReads } from '../../../core/realtime/shared-reads.ts';
import { describeAge, retentionAgeMs } from '../../../core/retention/rules.ts';
import { CHAT_CHANGES_RETENTION } from '../retention.ts';
import { changeKept, changeOfMessage, type RoomPosition, roomPosition } from '../store/room-position.ts';
import { CHAT_STREAM } from './changes.ts';
import { replayMissed } from './replay.ts';

const ResumeFields = {
  /** Resume: the last `changeSeq` this client got in the room; every change after it is sent first. */
  changeSeq: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Resume, for clients that only keep message numbers: from the change that created message `seq`. */
  seq: Type.Optional(Type.Integer({ minimum: 0 })),
};

/**
 * Where a join resumes: after the client's `changeSeq`, else after the change that created its last message
 * `seq` (it had every change up to that one), else from now. A number the room has not reached is refused,
 * and so is one whose next change retention has deleted (see resyncRequired).
 */
async function resumePoint(
  ctx: ServiceContext,
  frame: { room: string; seq?: number | undefined; changeSeq?: number | undefined },
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
  if (changeSeq === undefined && seq === undefined) return latest.changeSeq;
  const from = changeSeq ?? (await changeOfMessage(ctx, room, seq ?? 0));
  if (from < latest.changeSeq && !(await changeKept(ctx, room, from + 1)))
    throw resyncRequired(ctx, frame, from);
  return from;
}

/**
 * The changes after the client's position were deleted (retention): replaying the rest would skip them
 * without a word, so the join is refused and the client starts over from the history.
 */
function resyncRequired(
  ctx: ServiceContext,
  frame: { room: string; changeSeq?: number | undefined },
  from: number,
): InvalidRequest {
  const field = frame.changeSeq === undefined ? '/frame/seq' : '/frame/changeSeq';
  const ageMs = retentionAgeMs(ctx.config.retention, CHAT_CHANGES_RETENTION);
  const kept = ageMs === null ? '' : ` (changes are kept for ${describeAge(ageMs)})`;
  return new InvalidRequest(
    `room ${frame.room} no longer has the changes after ${from}${kept}; join without changeSeq and seq, and read the history with GET /v1/rooms/${frame.room}/messages`,
    [{ field, message: 'the changes after it are no longer kept', code: 'resync_required' }],
  );
}

/**
 * Chat's part of a join: `joined` says where the room's chat stands (`seq`, `changeSeq`); a client that
 * resumes (`changeSeq` or `seq`) then gets every change it missed from the database before live ones.
 */
export function chatJoin(replayPageSize: number): JoinContribution {
  /** The newest change when each membership joined, until its catch-up is done. */
  const latestAtJoin = new WeakMap<RealtimeMembership, number>();
  // Joins of one room at the same time share the read of its position (each asks once it is subscribed).
  const positions = new SharedReads<RoomKey, RoomPosition>();
  return defineJoin({
    fields: ResumeFields,
    async enter(host, membership, frame) {
      const ctx = host.context(membership.connection);
      const latest = await positions.read(membership.key, () => roomPosition(ctx, frame.room));
      membership.setPosition(CHAT_STREAM, await resumePoint(ctx, frame, latest));
      latestAtJoin.set(membership, latest.changeSeq);
      return { seq: latest.seq, changeSeq: latest.changeSeq };
    },
    async joined(host, membership) {
      const latest = latestAtJoin.get(membership) ?? 0;
      latestAtJoin.delete(membership);
      if (!membership.connection.may('chat', 'chat:read')) return;
      if (membership.position(CHAT_STREAM) < latest) await replayMissed(host, membership, replayPageSize);
    },
  });
}
