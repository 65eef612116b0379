import type { Static } from 'typebox';
import { inTenant, type ServiceContext } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import type { CreateRoomInput, Room } from '../schema.ts';
import { roomsConfig } from './config.ts';

type NewRoom = Static<typeof Room>;

interface QueuedCreate {
  ctx: ServiceContext;
  room: NewRoom;
  maxRooms: number;
}

/** A group that would take the tenant past its maximum: its rooms are then created one by one. */
class OverRoomLimit extends Error {}

/**
 * The rooms of a group and the tenant's room count in one statement: the counter goes up by the group's
 * size only while that stays within the maximum, and the rooms are written only when it did.
 * One room binds plain values; several bind arrays (unnest), which costs more to plan.
 */
function insertCountedSql(many: boolean): string {
  const batch = many
    ? `select * from unnest($2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) as b(id, name, metadata, at)`
    : 'select $2::text as id, $3::text as name, $4::jsonb as metadata, $5::timestamptz as at';
  return `
with batch as (${batch}),
counted as (
  insert into room_counts (tenant_id, n) select $1, $6::int where $6::int <= $7::int
  on conflict (tenant_id) do update set n = room_counts.n + excluded.n
    where room_counts.n + excluded.n <= $7::int
  returning n
)
insert into rooms (tenant_id, id, name, metadata, created_at, updated_at)
select $1, b.id, b.name, b.metadata, b.at, b.at from batch b where exists (select 1 from counted)
returning id`;
}
const INSERT_ONE = insertCountedSql(false);
const INSERT_GROUP = insertCountedSql(true);

/** Creations in one tenant are group-committed: its room counter is a hot row (see `createRoom`). */
const CREATE_WRITER: GroupWriter<QueuedCreate, NewRoom> = {
  writeGroup,
  writeOne,
  // A group over the maximum, or with one id that exists (or twice), rolled back whole: its rooms are
  // then created one by one, so only those that break a rule fail.
  isolates: (error) => error instanceof OverRoomLimit || pgErrorCode(error)?.startsWith('23') === true,
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
    id: input.id ?? newId('room'),
    name: input.name ?? null,
    metadata: input.metadata ?? {},
    createdAt: at,
    updatedAt: at,
  };
  return ctx.groupCommit.queue('rooms.create', CREATE_WRITER).submit(ctx.tenantId, { ctx, room, maxRooms });
}

/**
 * One transaction for a group of one tenant's creations (in `ctx` of the first): their events (with the
 * outbox) first, then the rooms with the count last, so the counter row stays locked only until the commit
 * that follows.
 */
async function writeGroup(group: readonly QueuedCreate[]): Promise<NewRoom[]> {
  const first = group[0];
  if (first === undefined) return [];
  const { ctx, maxRooms } = first;
  const many = group.length > 1;
  const column = <T>(pick: (room: NewRoom) => T) =>
    many ? group.map((c) => pick(c.room)) : pick(first.room);
  return inTenant(ctx, async (tx, _emit, emitEach) => {
    await emitEach(
      group.map(({ ctx: by, room }) => ({ by, type: 'room.created', data: { roomId: room.id, room } })),
    );
    const { rows } = await tx.query(many ? INSERT_GROUP : INSERT_ONE, [
      ctx.tenantId,
      column((room) => room.id),
      column((room) => room.name),
      column((room) => JSON.stringify(room.metadata)),
      column((room) => room.createdAt),
      group.length,
      maxRooms,
    ]);
    if (rows.length === 0) throw new OverRoomLimit();
    return group.map((c) => c.room);
  });
}

async function writeOne(create: QueuedCreate): Promise<NewRoom> {
  try {
    const [room] = await writeGroup([create]);
    if (room === undefined) throw new Error('room insert returned nothing');
    return room;
  } catch (error) {
    if (error instanceof OverRoomLimit)
      throw new Conflict(`this tenant already has ${create.maxRooms} rooms, its configured maximum`);
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation)
      throw new Conflict(`room ${create.room.id} already exists`);
    throw error;
  }
}
