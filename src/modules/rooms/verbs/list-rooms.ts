import type { Static } from 'typebox';
import { roomLimit } from '../../../core/auth/principal.ts';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { ROOM_COLUMNS, type RoomRow, toRoom } from '../room-row.ts';
import type { ListRoomsInput, RoomPage } from '../schema.ts';

/** Newest first; metadata filters are ANDed and compare as text (`?metadata.tier=2` matches 2 and "2"). */
export function listRooms(
  ctx: ServiceContext,
  input: Static<typeof ListRoomsInput>,
): Promise<Static<typeof RoomPage>> {
  return listPage(ctx, input, {
    select: `select ${ROOM_COLUMNS} from rooms r`,
    orderBy: 'r.seq',
    keyOf: (row: RoomRow) => row.seq,
    view: toRoom,
    filters: (bind) => {
      const where: string[] = [];
      const onlyRoom = roomLimit(ctx.principal);
      if (onlyRoom !== undefined) where.push(`r.id = ${bind(onlyRoom)}`);
      if (input.metadata !== undefined && Object.keys(input.metadata).length > 0) {
        where.push(`not exists (select 1 from jsonb_each_text(${bind(JSON.stringify(input.metadata))}::jsonb) f
                             where (r.metadata ->> f.key) is distinct from f.value)`);
      }
      return where;
    },
  });
}
