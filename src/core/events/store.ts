import type { Clock } from '../clock.ts';
import type { Queryable, QueryResult } from '../db/database.ts';
import { newId } from '../ids.ts';
import { inSpan, inSpanSync, type SpanAttributes, tracingOn } from '../ops/tracing/spans.ts';
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

/** Adds a parameter to a statement being built and returns its placeholder (`$3`). */
export type Bind = (value: unknown) => string;

/**
 * A module's own data-modifying statement (`insert ... returning ...`), written with `bind` for its
 * values, to run as a CTE of the statement that records its events (see `EventStore.writeWith`).
 * PostgreSQL allows data-modifying CTEs only at the top level, so the CTEs the statement needs are
 * given apart, as `[name, sql]` pairs in order; `events_written`, `own` and `w<n>` are taken.
 */
export type OwnStatement = (bind: Bind) => { with?: readonly (readonly [string, string])[]; sql: string };

interface BuiltStatement {
  sql: string;
  params: unknown[];
  writers: OutboxWriter[];
}

/**
 * Several events as one JSON array of records, for `jsonb_to_recordset`: one `JSON.stringify` of them all,
 * where `jsonb[]` parameters made the driver escape every quote of every event's JSON once more.
 */
function eventRecords(events: readonly TenantEvent[]): string {
  return JSON.stringify(
    events.map((e) => ({ id: e.id, type: e.type, data: e.data, trace: e.trace, created_at: e.createdAt })),
  );
}

/**
 * The one `insert into events`: the rows of `events` (one tenant), with every writer's statement, and
 * the caller's `own` statement if any, as CTEs of the same statement, so the whole outbox is one round
 * trip. One event binds plain values; several bind one JSON array of records.
 */
function outboxStatement(
  tenantId: string,
  events: readonly TenantEvent[],
  writers: readonly OutboxWriter[],
  own?: OwnStatement,
): BuiltStatement {
  const params: unknown[] = [];
  const bind: Bind = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  const [only] = events;
  // Bound only when written (no events, no rows): a parameter the statement does not use has no type,
  // and PostgreSQL refuses the statement.
  const rows = () => {
    const tenant = bind(tenantId);
    return events.length === 1 && only !== undefined
      ? `values (${bind(only.id)}, ${tenant}, ${bind(only.type)}, ${bind(JSON.stringify(only.data))}::jsonb,
                 ${bind(JSON.stringify(only.trace))}::jsonb, ${bind(only.createdAt)}::timestamptz)`
      : `select id, ${tenant}, type, data, trace, created_at
           from jsonb_to_recordset(${bind(eventRecords(events))}::jsonb)
                as e(id text, type text, data jsonb, trace jsonb, created_at timestamptz)`;
  };
  const parts: { name: string; writer?: OutboxWriter; sql: string }[] = [];
  if (events.length > 0) {
    for (const writer of writers) {
      const sql = writer.statement(events, bind);
      if (sql !== undefined) parts.push({ name: `w${parts.length}`, writer, sql });
    }
  }
  const helpers: (readonly [string, string])[] = [];
  if (own !== undefined) {
    const statement = own(bind);
    helpers.push(...(statement.with ?? []));
    parts.push({ name: 'own', sql: statement.sql });
  }
  if (parts.length === 0) return { sql: `${EVENT_COLUMNS} ${rows()}`, params, writers: [] };
  const ctes = [
    ...(events.length > 0 ? [`events_written as (${EVENT_COLUMNS} ${rows()})`] : []),
    ...helpers.map(([name, sql]) => `${name} as (${sql})`),
    ...parts.map((part) => `${part.name} as (${part.sql})`),
  ].join(',\n');
  const returned = parts
    .map((p) => `coalesce((select jsonb_agg(to_jsonb(${p.name})) from ${p.name}), '[]'::jsonb) as ${p.name}`)
    .join(', ');
  return {
    sql: `with ${ctes}\nselect ${returned}`,
    params,
    writers: parts.flatMap((part) => (part.writer === undefined ? [] : [part.writer])),
  };
}

/** What to run once a written statement has committed: each writer's `committed`, with its rows. */
function followUpsOf(
  statement: BuiltStatement,
  row: Record<string, Record<string, unknown>[]> | undefined,
): (() => void)[] {
  const followUps: (() => void)[] = [];
  for (const [i, writer] of statement.writers.entries()) {
    const returned = row?.[`w${i}`] ?? [];
    if (writer.committed !== undefined) followUps.push(() => writer.committed?.(returned));
  }
  return followUps;
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
  const [first] = events;
  if (first === undefined) return [];
  const statement = outboxStatement(first.tenantId, events, writers);
  const { rows } = await tx.query<Record<string, Record<string, unknown>[]>>(statement.sql, statement.params);
  return followUpsOf(statement, rows[0]);
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
    const events = this.build(tenantId, items);
    const followUps = await inSpan(
      'outbox.write',
      () => writeEvents(tx, events, this.writers()),
      tracingOn() ? eventAttributes(events) : undefined,
    );
    batch.events.push(...events);
    batch.followUps.push(...followUps);
    return events;
  }

  /**
   * A write that is one statement: `own` (the module's rows) with `items` as events of the tenant and
   * every outbox writer's rows, all CTEs of one statement, which `run` executes. A single statement is
   * atomic without a transaction around it, so `run` may be a tenant read path (`tenantRead`): one round
   * trip for the whole write. `own` must fail (a constraint) rather than return nothing when the write
   * is refused, since the events commit with it. Answers the rows `own` returned, as JSON values
   * (`to_jsonb`: timestamps as text, numbers as numbers); the events join `batch`. Without `own`, the
   * statement writes the events and their outbox rows only (and answers no rows).
   */
  async writeWith<Row>(
    tenantId: string,
    items: readonly NewEvent[],
    own: OwnStatement | undefined,
    run: (sql: string, params: readonly unknown[]) => Promise<QueryResult<Record<string, unknown>>>,
    batch: EventBatch,
  ): Promise<Row[]> {
    const events = this.build(tenantId, items);
    const statement = outboxStatement(tenantId, events, this.writers(), own);
    const { rows } = await inSpan(
      'outbox.write',
      () => run(statement.sql, statement.params),
      tracingOn() ? eventAttributes(events) : undefined,
    );
    const row = rows[0] as Record<string, Record<string, unknown>[]> | undefined;
    batch.events.push(...events);
    batch.followUps.push(...followUpsOf(statement, row));
    return (row?.own ?? []) as Row[];
  }

  private build(tenantId: string, items: readonly NewEvent[]): TenantEvent[] {
    const createdAt = this.clock.now();
    const created = new Date(createdAt).toISOString();
    return items.map(
      (item): TenantEvent => ({
        id: newId('event', createdAt),
        tenantId,
        type: item.type,
        data: item.data,
        createdAt: created,
        trace: item.trace,
      }),
    );
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
    if (tracingOn() && batch.events.length > 0) {
      inSpanSync('outbox.publish', () => this.publishNow(batch, options), eventAttributes(batch.events));
    } else {
      this.publishNow(batch, options);
    }
  }

  private publishNow(batch: EventBatch, options: { broadcast?: boolean }): void {
    for (const event of batch.events) {
      if (options.broadcast === true) this.bus.broadcast(event);
      else this.bus.publish(event);
    }
    for (const followUp of batch.followUps) followUp();
  }
}

/** What a span of the outbox says about its events. */
function eventAttributes(events: readonly TenantEvent[]): SpanAttributes {
  return {
    'svc.event.count': events.length,
    'svc.event.types': [...new Set(events.map((event) => event.type))].join(','),
    'svc.event.id': events.length === 1 ? events[0]?.id : undefined,
  };
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
