import type { Database } from '../../core/db/database.ts';
import { tenantRead, tenantTx } from '../../core/db/tenant-tx.ts';
import { breakdownSeries, groupedRows, rollupAnswers, shape } from './series-sql.ts';
import { compileFilters, SqlParams } from './sql.ts';
import type { AnalyticsStore, StoredEvent } from './store.ts';

const HOUR = 3_600_000;

/** Whether a failed insert only lacked the month's partition (created on demand, then retried). */
function missingPartition(error: unknown): boolean {
  return error instanceof Error && /no partition of relation/i.test(error.message);
}

const iso = (t: number) => new Date(t).toISOString();

/**
 * The events, the messageIds that dedupe, and the hourly rollups, as one statement: it commits whole
 * or not at all. A messageId that another writer recorded first (even one committing at this moment)
 * is not inserted here, and its event is not written; the statement answers those positions.
 * Rollup rows are updated in key order, so concurrent writers take their row locks in the same order.
 */
const INSERT_SQL = `
with batch as (
  select * from unnest($2::int[], $3::text[], $4::timestamptz[], $5::timestamptz[], $6::text[], $7::boolean[],
                       $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::jsonb[], $13::boolean[], $14::timestamptz[])
    as b(pos, event, ts, received_at, message_id, dedupe, actor_id, anonymous_id, room_id, properties, context,
         clamped, hour)
),
fresh as (
  insert into analytics_message_ids (tenant_id, message_id, received_at)
  select $1, message_id, received_at from batch where dedupe order by message_id
  on conflict do nothing
  returning message_id
),
kept as (
  select * from batch b where not b.dedupe or b.message_id in (select message_id from fresh)
),
written as (
  insert into analytics_events (tenant_id, event, ts, received_at, message_id, actor_id, anonymous_id, actor_key,
                                room_id, properties, context, clamped)
  select $1, event, ts, received_at, message_id, actor_id, anonymous_id,
         coalesce(actor_id, '~' || anonymous_id), room_id, properties, context, clamped
    from kept
  returning 1
),
rolled as (
  insert into analytics_hourly as h (tenant_id, event, hour, events)
  select $1, event, hour, count(*) from kept group by event, hour order by 2, 3
  on conflict (tenant_id, event, hour) do update set events = h.events + excluded.events
  returning 1
)
select b.pos, (select count(*) from written)::int as written, (select count(*) from rolled)::int as rolled
  from batch b where b.dedupe and b.message_id not in (select message_id from fresh)`;

/** The store on the service's database (PGlite or PostgreSQL): see `AnalyticsStore`. */
export const postgresStore: AnalyticsStore = {
  async insert(ctx, rows) {
    if (rows.length === 0) return { duplicates: new Set() };
    const params = insertParams(ctx.tenantId, rows);
    const run = () => tenantRead<{ pos: number }>(ctx.db, { tenantId: ctx.tenantId }, INSERT_SQL, params);
    let result: Awaited<ReturnType<typeof run>>;
    try {
      result = await run();
    } catch (error) {
      if (!missingPartition(error)) throw error;
      await ensurePartitions(ctx.db, rows);
      result = await run();
    }
    return { duplicates: new Set(result.rows.map((r) => r.pos)) };
  },

  async series(ctx, query, options = {}) {
    const rollup = options.source !== 'raw' && rollupAnswers(query);
    const scoped = { ...query, tenantId: ctx.tenantId };
    if (query.breakdown === undefined) {
      const rows = await groupedRows(ctx, scoped, rollup);
      return { source: rollup ? 'rollup' : 'raw', ...shape(query, rows) };
    }
    return breakdownSeries(ctx, scoped, rollup);
  },

  async funnel(ctx, query) {
    const p = new SqlParams();
    const tenant = p.add(ctx.tenantId);
    const names = p.add([...new Set(query.steps.map((s) => s.event))]);
    const flags = query.steps.map(
      (step, i) => `(event = ${p.add(step.event)} and ${compileFilters(step.filters, p)}) as m${i + 1}`,
    );
    const window = p.add(query.windowMs);
    const ctes = [
      `e as (select actor_key as a, ts, ${flags.join(', ')} from analytics_events
              where tenant_id = ${tenant} and ts >= ${p.add(iso(query.from))}::timestamptz
                and ts < ${p.add(iso(query.to))}::timestamptz and event = any(${names}::text[]))`,
      's1 as (select distinct a, ts as t1, ts as tp from e where m1)',
    ];
    // Per first-step time, the earliest event of each next step after the previous one: the greedy choice
    // that reaches furthest (a later choice only narrows what can follow within the same window).
    for (let i = 2; i <= query.steps.length; i++) {
      ctes.push(`s${i} as (select s.a, s.t1, min(e.ts) as tp from s${i - 1} s
                    join e on e.a = s.a and e.m${i} and e.ts > s.tp
                          and e.ts <= s.t1 + (${window}::bigint * interval '1 millisecond')
                   group by s.a, s.t1)`);
    }
    const counts = query.steps.map((_, i) => `(select count(distinct a) from s${i + 1})::int as c${i + 1}`);
    const { rows } = await tenantRead<Record<string, number>>(
      ctx.db,
      { tenantId: ctx.tenantId },
      `with ${ctes.join(',\n')} select ${counts.join(', ')}`,
      p.values,
    );
    const row = rows[0] ?? {};
    return query.steps.map((_, i) => Number(row[`c${i + 1}`] ?? 0));
  },

  async deleteBefore(ctx, before) {
    return tenantTx(ctx.db, { tenantId: ctx.tenantId }, async (tx) => {
      const at = iso(before);
      const events = await tx.query('delete from analytics_events where tenant_id = $1 and ts < $2', [
        ctx.tenantId,
        at,
      ]);
      // An hour that straddles the cut keeps its rollup until it is wholly past it.
      await tx.query("delete from analytics_hourly where tenant_id = $1 and hour + interval '1 hour' <= $2", [
        ctx.tenantId,
        at,
      ]);
      return events.rowCount;
    });
  },

  async dropPartitionsBefore(db, before) {
    const { rows } = await db.query<{ name: string; upper: string }>(
      `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as upper
         from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'analytics_events'::regclass`,
    );
    const dropped: string[] = [];
    for (const row of rows) {
      const match = /^analytics_events_(\d{4})(\d{2})$/.exec(row.name);
      if (match === null) continue;
      const end = Date.UTC(Number(match[1]), Number(match[2]), 1);
      if (end > before) continue;
      await db.exec(`drop table if exists ${row.name}`);
      dropped.push(row.name);
    }
    return dropped;
  },
};

function insertParams(tenantId: string, rows: readonly StoredEvent[]): unknown[] {
  return [
    tenantId,
    rows.map((_, i) => i),
    rows.map((r) => r.event),
    rows.map((r) => iso(r.ts)),
    rows.map((r) => iso(r.receivedAt)),
    rows.map((r) => r.messageId),
    rows.map((r) => r.dedupe),
    rows.map((r) => r.actorId),
    rows.map((r) => r.anonymousId),
    rows.map((r) => r.roomId),
    rows.map((r) => JSON.stringify(r.properties)),
    rows.map((r) => (r.context === null ? null : JSON.stringify(r.context))),
    rows.map((r) => r.clamped),
    rows.map((r) => iso(Math.floor(r.ts / HOUR) * HOUR)),
  ];
}

/** Creates the monthly partitions the rows fall in (as the database owner: tenants create nothing). */
export async function ensurePartitions(db: Database, rows: readonly { ts: number }[]): Promise<void> {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    min = Math.min(min, r.ts);
    max = Math.max(max, r.ts);
  }
  await db.query('select analytics_ensure_partitions($1::date, $2::date)', [
    iso(min).slice(0, 10),
    iso(max).slice(0, 10),
  ]);
}
