import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/database.ts';
import { newId } from '../ids.ts';
import type { EventBus } from './bus.ts';
import type { TenantEvent, TraceMetadata } from './types.ts';

export interface EventRow {
  id: string;
  tenant_id: string;
  type: string;
  data: Record<string, unknown>;
  trace: TraceMetadata;
  created_at: Date;
}

export function toEvent(row: EventRow): TenantEvent {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: row.type,
    data: row.data,
    createdAt: new Date(row.created_at).toISOString(),
    trace: row.trace,
  };
}

/**
 * A module's outbox: rows that must commit with the events they are about (e.g. webhook deliveries).
 * Core writes the event rows; a writer adds its own in the same statement.
 */
export interface OutboxWriter {
  /**
   * One data-modifying statement (`insert ... returning ...`) that adds the module's rows for `events`
   * (all of one tenant). It runs as a CTE of the statement that inserts the events, so both commit or
   * neither does; it cannot see the new event rows, only the values it binds. `bind` adds a parameter and
   * returns its placeholder. Undefined when there is nothing to add.
   */
  statement(events: readonly TenantEvent[], bind: (value: unknown) => string): string | undefined;
  /** After the transaction committed, with the rows the statement returned (e.g. to wake a worker). */
  committed?(rows: readonly Record<string, unknown>[]): void;
}

/** Events written in one transaction: published, with their writers' follow-ups, once it has committed. */
export class EventBatch {
  readonly events: TenantEvent[] = [];
  readonly followUps: (() => void)[] = [];
}

const EVENT_COLUMNS = 'insert into events (id, tenant_id, type, data, trace, created_at)';

/**
 * The one `insert into events`: the rows of `events` (one tenant), with every writer's statement as a CTE
 * of the same statement, so the whole outbox is one round trip. One event binds plain values; several
 * bind arrays (unnest), which costs more to plan.
 */
function outboxStatement(
  events: readonly TenantEvent[],
  writers: readonly OutboxWriter[],
): { sql: string; params: unknown[]; writers: OutboxWriter[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const [only] = events;
  const tenant = bind(only?.tenantId);
  const rows =
    events.length === 1 && only !== undefined
      ? `values (${bind(only.id)}, ${tenant}, ${bind(only.type)}, ${bind(JSON.stringify(only.data))}::jsonb,
                 ${bind(JSON.stringify(only.trace))}::jsonb, ${bind(only.createdAt)}::timestamptz)`
      : `select id, ${tenant}, type, data, trace, created_at
           from unnest(${bind(events.map((e) => e.id))}::text[], ${bind(events.map((e) => e.type))}::text[],
                       ${bind(events.map((e) => JSON.stringify(e.data)))}::jsonb[],
                       ${bind(events.map((e) => JSON.stringify(e.trace)))}::jsonb[],
                       ${bind(events.map((e) => e.createdAt))}::timestamptz[])
                as e(id, type, data, trace, created_at)`;
  const parts: { writer: OutboxWriter; sql: string }[] = [];
  for (const writer of writers) {
    const sql = writer.statement(events, bind);
    if (sql !== undefined) parts.push({ writer, sql });
  }
  if (parts.length === 0) return { sql: `${EVENT_COLUMNS} ${rows}`, params, writers: [] };
  const ctes = parts.map((part, i) => `w${i} as (${part.sql})`).join(',\n');
  const returned = parts
    .map((_, i) => `coalesce((select jsonb_agg(to_jsonb(w${i})) from w${i}), '[]'::jsonb) as w${i}`)
    .join(', ');
  return {
    sql: `with events_written as (${EVENT_COLUMNS} ${rows}),\n${ctes}\nselect ${returned}`,
    params,
    writers: parts.map((part) => part.writer),
  };
}

/**
 * Writes `events` (built, all of one tenant) and every writer's rows in one statement of `tx`; returns
 * what to run once the transaction has committed (the writers' `committed`, with the rows each returned).
 */
export async function writeEvents(
  tx: Queryable,
  events: readonly TenantEvent[],
  writers: readonly OutboxWriter[],
): Promise<(() => void)[]> {
  if (events.length === 0) return [];
  const statement = outboxStatement(events, writers);
  const { rows } = await tx.query<Record<string, Record<string, unknown>[]>>(statement.sql, statement.params);
  const followUps: (() => void)[] = [];
  for (const [i, writer] of statement.writers.entries()) {
    const returned = rows[0]?.[`w${i}`] ?? [];
    if (writer.committed !== undefined) followUps.push(() => writer.committed?.(returned));
  }
  return followUps;
}

export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  trace: TraceMetadata;
}

/**
 * Writes events into the caller's transaction, with the rows the modules' outbox writers add, and
 * publishes them (and runs the writers' follow-ups) after commit.
 */
export class EventStore {
  constructor(
    readonly bus: EventBus,
    private readonly clock: Clock,
    /** The modules' outbox writers; read at each write, so the app can add them after building the store. */
    private readonly writers: () => readonly OutboxWriter[] = () => [],
  ) {}

  /** Several events of one tenant in one statement, in order, added to `batch`. */
  async insertMany(
    tx: Queryable,
    tenantId: string,
    items: readonly NewEvent[],
    batch: EventBatch,
  ): Promise<TenantEvent[]> {
    const createdAt = this.clock.now();
    const created = new Date(createdAt).toISOString();
    const events = items.map(
      (item): TenantEvent => ({
        id: newId('event', createdAt),
        tenantId,
        type: item.type,
        data: item.data,
        createdAt: created,
        trace: item.trace,
      }),
    );
    const followUps = await writeEvents(tx, events, this.writers());
    batch.events.push(...events);
    batch.followUps.push(...followUps);
    return events;
  }

  async insert(tx: Queryable, tenantId: string, event: NewEvent, batch: EventBatch): Promise<TenantEvent> {
    const [written] = await this.insertMany(tx, tenantId, [event], batch);
    if (written === undefined) throw new Error('insertMany returned no event');
    return written;
  }

  /**
   * After commit: the batch's events go out on the bus, then its writers' follow-ups run. `broadcast`:
   * to the subscribers of every instance, not only this one's (see EventBus).
   */
  publish(batch: EventBatch, options: { broadcast?: boolean } = {}): void {
    for (const event of batch.events) {
      if (options.broadcast === true) this.bus.broadcast(event);
      else this.bus.publish(event);
    }
    for (const followUp of batch.followUps) followUp();
  }
}

/** The event as the API and webhooks show it. */
export function eventToWire(event: TenantEvent) {
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    created_at: event.createdAt,
    trace: event.trace,
  };
}
