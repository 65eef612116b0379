import { type ServiceContext, tenantWrite } from '../context.ts';
import type { GroupWriter } from '../db/group-commit.ts';
import { tenantRead } from '../db/tenant-tx.ts';
import { decodeCursor, encodeCursor, likePrefix } from '../http/cursor.ts';
import { InvalidRequest, NotFound } from '../http/errors.ts';
import { DEFAULT_PAGE_LIMIT, type PageInput } from '../http/pagination.ts';
import { type EventRow, toEvent } from './store.ts';
import type { TenantEvent } from './types.ts';

export interface ListEventsInput extends PageInput {
  type?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Only events with a greater id than this one (ids grow with time): what a live tail polls with. */
  after?: string | undefined;
  /** Only events whose `trace.actor.id` is this (an API key, a console user, a runtime actor). */
  actor?: string | undefined;
  order?: 'asc' | 'desc' | undefined;
}

const COLUMNS = 'id, tenant_id, type, data, trace, created_at';

/** Newest first by default; keyset pages by id, so events arriving meanwhile never shift a page. */
export async function listEvents(
  ctx: ServiceContext,
  input: ListEventsInput,
): Promise<{ data: TenantEvent[]; nextCursor: string | null }> {
  const order = input.order ?? 'desc';
  const limit = input.limit ?? DEFAULT_PAGE_LIMIT;
  const cursor = decodeCursor(input.cursor);
  if (cursor !== undefined && cursor.order !== order) {
    throw new InvalidRequest('the cursor belongs to a listing in the other order', [
      {
        field: '/querystring/order',
        message: `the cursor was issued for order=${cursor.order}`,
        code: 'cursor_mismatch',
      },
    ]);
  }
  const type = input.type;
  const exact = type !== undefined && !type.endsWith('.*') ? type : null;
  const prefix = type?.endsWith('.*') === true ? likePrefix(type.slice(0, -1)) : null;
  const { rows } = await tenantRead<EventRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${COLUMNS} from events
        where ($1::text is null or type = $1)
          and ($2::text is null or type like $2)
          and ($3::timestamptz is null or created_at >= $3)
          and ($4::timestamptz is null or created_at < $4)
          and ($5::text is null or (case when $6 = 'desc' then id < $5 else id > $5 end))
          and ($8::text is null or id > $8)
          and ($9::text is null or trace->'actor'->>'id' = $9)
        order by id ${order === 'desc' ? 'desc' : 'asc'}
        limit $7`,
    [
      exact,
      prefix,
      input.since ?? null,
      input.until ?? null,
      cursor?.after ?? null,
      order,
      limit + 1,
      input.after ?? null,
      input.actor ?? null,
    ],
  );
  const page = rows.slice(0, limit).map(toEvent);
  const last = page.at(-1);
  return {
    data: page,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor({ after: last.id, order }) : null,
  };
}

export async function getEvent(ctx: ServiceContext, id: string): Promise<TenantEvent> {
  const { rows } = await tenantRead<EventRow>(
    ctx.db,
    { tenantId: ctx.tenantId },
    `select ${COLUMNS} from events where id = $1`,
    [id],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('event', id);
  return toEvent(row);
}

export const MAX_CUSTOM_EVENT_BYTES = 64 * 1024;

interface QueuedEvent {
  ctx: ServiceContext;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A tenant's custom events are group-committed: the events POSTed while the tenant's previous statement
 * runs are written together, in arrival order, by one statement (with their webhook deliveries, see
 * `tenantWrite`), and published after it, in that order. Each keeps its own trace (its request's).
 */
const PUBLISH_WRITER: GroupWriter<QueuedEvent, TenantEvent> = {
  async writeGroup(group) {
    const first = group[0];
    if (first === undefined) return [];
    let written: readonly TenantEvent[] = [];
    await tenantWrite(
      first.ctx,
      group.map(({ ctx, type, data }) => ({ by: ctx, type, data })),
      undefined,
      (batch) => {
        written = batch.events;
        first.ctx.events.publish(batch);
      },
    );
    if (written.length !== group.length)
      throw new Error(`${written.length} of ${group.length} events written`);
    return [...written];
  },
};

/** Custom application events (`app.<name>`), delivered like any other tenant event. */
export async function publishEvent(
  ctx: ServiceContext,
  input: { type: string; data: Record<string, unknown> },
): Promise<TenantEvent> {
  const size = Buffer.byteLength(JSON.stringify(input.data));
  if (size > MAX_CUSTOM_EVENT_BYTES) {
    throw new InvalidRequest(`data is ${size} bytes; the limit is ${MAX_CUSTOM_EVENT_BYTES}`, [
      {
        field: '/body/data',
        message: `must be at most ${MAX_CUSTOM_EVENT_BYTES} bytes of JSON`,
        code: 'too_large',
      },
    ]);
  }
  return ctx.groupCommit
    .queue('events.publish', PUBLISH_WRITER)
    .submit(ctx.tenantId, { ctx, type: input.type, data: input.data });
}
