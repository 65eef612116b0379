import type { Static } from 'typebox';
import { type ServiceContext, tenantWrite } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import type { OwnStatement } from '../../../core/events/store.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../ids.ts';
import { roomsConfig } from '../rooms-config.ts';
import type { CreateRoomInput, Room } from '../schema.ts';

type NewRoom = Static<typeof Room>;

interface QueuedCreate {
  ctx: ServiceContext;
  room: NewRoom;
  maxRooms: number;
}

/**
 * The rooms of a group and the tenant's room count, as one statement (with the rooms' events, see
 * `tenantWrite`): the counter goes up by the group's size and records the maximum, and the
 * `room_counts_within_max` check fails the whole statement when that passes it. One room binds plain
 * values; several bind arrays (unnest), which costs more to plan.
 */
function insertCounted(group: readonly QueuedCreate[], maxRooms: number): OwnStatement {
  return (bind) => {
    const [only] = group;
    const tenant = bind(only?.ctx.tenantId);
    const batch =
      group.length === 1 && only !== undefined
        ? `select ${bind(only.room.id)}::text as id, ${bind(only.room.name)}::text as name,
                  ${bind(JSON.stringify(only.room.metadata))}::jsonb as metadata,
                  ${bind(only.room.createdAt)}::timestamptz as at`
        : `select * from unnest(${bind(group.map((c) => c.room.id))}::text[],
                                ${bind(group.map((c) => c.room.name))}::text[],
                                ${bind(group.map((c) => JSON.stringify(c.room.metadata)))}::jsonb[],
                                ${bind(group.map((c) => c.room.createdAt))}::timestamptz[])
                    as b(id, name, metadata, at)`;
    const counted = `insert into room_counts (tenant_id, n, max_n)
      values (${tenant}, ${bind(group.length)}::int, ${bind(maxRooms)}::int)
      on conflict (tenant_id) do update set n = room_counts.n + excluded.n, max_n = excluded.max_n
      returning n`;
    return {
      with: [
        ['batch', batch],
        ['counted', counted],
      ],
      sql: `insert into rooms (tenant_id, id, name, metadata, created_at, updated_at)
            select ${tenant}, b.id, b.name, b.metadata, b.at, b.at from batch b
             where exists (select 1 from counted)
            returning id`,
    };
  };
}

/** Creations in one tenant are group-committed: its room counter is a hot row (see `createRoom`). */
const CREATE_WRITER: GroupWriter<QueuedCreate, NewRoom> = {
  writeGroup,
  writeOne,
  // A group over the maximum, or with one id that exists (or twice), failed whole: its rooms are then
  // created one by one, so only those that break a rule fail.
  isolates: (error) => pgErrorCode(error)?.startsWith('23') === true,
};

/**
 * Creates a room. Creations in one tenant go through the app's group-commit queue: while one transaction
 * holds the tenant's room counter, later creations wait, and the next transaction writes all of them.
 */
export async function createRoom(
  ctx: ServiceContext,
  input: Static<typeof CreateRoomInput>,
): Promise<NewRoom> {
  const { maxRooms } = await roomsConfig(ctx);
  const at = new Date(ctx.clock.now()).toISOString();
  const room: NewRoom = {
    id: input.id ?? newId('room', ctx.clock.now()),
    name: input.name ?? null,
    metadata: input.metadata ?? {},
    createdAt: at,
    updatedAt: at,
  };
  return ctx.groupCommit.queue('rooms.create', CREATE_WRITER).submit(ctx.tenantId, { ctx, room, maxRooms });
}

/**
 * One statement for a group of one tenant's creations (in `ctx` of the first): their events (with the
 * outbox), the rooms and the count. It commits on its own, so the counter row is locked only while it runs.
 */
async function writeGroup(group: readonly QueuedCreate[]): Promise<NewRoom[]> {
  const first = group[0];
  if (first === undefined) return [];
  const rows = await tenantWrite<{ id: string }>(
    first.ctx,
    group.map(({ ctx: by, room }) => ({ by, type: 'room.created', data: { roomId: room.id, room } })),
    insertCounted(group, first.maxRooms),
  );
  if (rows.length !== group.length) throw new Error(`${rows.length} of ${group.length} rooms written`);
  return group.map((c) => c.room);
}

async function writeOne(create: QueuedCreate): Promise<NewRoom> {
  try {
    const [room] = await writeGroup([create]);
    if (room === undefined) throw new Error('room insert returned nothing');
    return room;
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.checkViolation)
      throw new Conflict(`this tenant already has ${create.maxRooms} rooms, its configured maximum`);
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation)
      throw new Conflict(`room ${create.room.id} already exists`);
    throw error;
  }
}
