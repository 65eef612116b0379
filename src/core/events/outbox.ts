// The outbox statement: a tenant's event rows, every module's outbox rows and a caller's own rows in one
// statement (see EventStore.writeWith, writeEvents).
import type { TenantEvent } from './types.ts';

/**
 * A module's outbox: rows that must commit with the events they are about (e.g. webhook deliveries).
 * Core writes the event rows; a writer adds its own in the same statement.
 */
export interface OutboxWriter {
  /**
   * One data-modifying statement (`insert ... returning ...`) that adds the module's rows for `events`
   * (all of one tenant). It runs as a CTE of the statement that inserts the events, so both commit or
   * neither does; it cannot see the new event rows, only the values it binds. `bind` adds a parameter and
   * returns its placeholder. Undefined when there is nothing to add. `standalone`: the statement is not
   * inside a transaction, so when it fails on what the writer assumed (see `stale`) it can run again.
   */
  statement(
    events: readonly TenantEvent[],
    bind: (value: unknown) => string,
    standalone?: boolean,
  ): string | undefined;
  /**
   * After the transaction committed, with the rows the statement returned (e.g. to wake a worker) and
   * the events' tenant.
   */
  committed?(rows: readonly Record<string, unknown>[], tenantId: string): void;
  /**
   * Whether a standalone statement's `error` came from what this writer assumed (and it now knows
   * better): the statement is then built and run once more (see EventStore.writeWith).
   */
  stale?(error: unknown, tenantId: string): boolean;
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

export interface BuiltStatement {
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
export function outboxStatement(
  tenantId: string,
  events: readonly TenantEvent[],
  writers: readonly OutboxWriter[],
  own?: OwnStatement,
  standalone = false,
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
      const sql = writer.statement(events, bind, standalone);
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
export function followUpsOf(
  statement: BuiltStatement,
  row: Record<string, Record<string, unknown>[]> | undefined,
  tenantId: string,
): (() => void)[] {
  const followUps: (() => void)[] = [];
  for (const [i, writer] of statement.writers.entries()) {
    const returned = row?.[`w${i}`] ?? [];
    if (writer.committed !== undefined) followUps.push(() => writer.committed?.(returned, tenantId));
  }
  return followUps;
}
