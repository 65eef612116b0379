import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { ServiceUnavailable } from '../../../core/http/errors.ts';
import { pageOfList } from '../../../core/http/pagination.ts';
import { roomKey } from '../../../core/realtime/index.ts';
import { assertRoomExists } from '../../rooms/port.ts';
import { memberView } from '../member.ts';
import type { MemberList, PresenceRef } from '../schema.ts';

/**
 * Who is in a room now, across every instance: one entry per actor, with its state and connections, in
 * order of joining, a page at a time (a page's cursor is a position in that order: members who leave
 * meanwhile shift it).
 */
export async function listPresence(
  ctx: ServiceContext,
  input: Static<typeof PresenceRef>,
): Promise<Static<typeof MemberList>> {
  await assertRoomExists(ctx, input.roomId);
  const presence = ctx.realtime?.presence;
  if (presence === undefined) throw new ServiceUnavailable('presence is not running on this instance');
  const members = await presence.list(roomKey(ctx.tenantId, input.roomId));
  return pageOfList(members.map(memberView), input);
}
