import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../core/db/database.ts';
import type { TenantEvent } from '../../core/events/types.ts';
import { DEAD_LETTERED_EVENT, type WebhookEvent } from './types.ts';

export interface EnqueueOptions {
  /** When the first attempt is due (ms since epoch); default: the event's createdAt, i.e. at once. */
  now?: number;
}

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/**
 * True, in SQL, when an endpoint whose filter is `filter` (a text[] column, null = every type) receives
 * events of `type`: the exact type, or a `prefix.*` entry the type lies under (at any depth, never the
 * prefix itself).
 */
export function eventTypeMatchSql(filter: string, type: string): string {
  return `(${filter} is null or ${type} = any(${filter}) or exists (
    select 1 from unnest(${filter}) as entry
    where right(entry, 2) = '.*' and starts_with(${type}, left(entry, -1)) and length(${type}) >= length(entry)))`;
}

/**
 * One statement for the events of one tenant: (optionally) the event rows, and one pending delivery per
 * event and enabled endpoint whose eventTypes matches, with the delivery ids minted in SQL. A body is
 * `{"id":"<delivery id>",` followed by the rest serialized once here, so it holds exactly the bytes
 * `JSON.stringify({id, type, created_at, data})` would. One event (the usual case) binds plain values;
 * several bind arrays (unnest), which costs more to plan.
 */
function fanOutSql(withEvents: boolean, many: boolean): string {
  const param = (n: number, type: string) => (many ? `$${n}::${type}[]` : `$${n}::${type}`);
  const eventRows = many
    ? `select id, $1, type, data::jsonb, trace::jsonb, created_at
         from unnest($2::text[], $3::text[], $11::text[], $12::text[], $13::timestamptz[])
              as t(id, type, data, trace, created_at)`
    : 'values ($2, $1, $3, $11::jsonb, $12::jsonb, $13::timestamptz)';
  const columns = [
    ['event_id', 2, 'text'],
    ['type', 3, 'text'],
    ['at_ms', 4, 'bigint'],
    ['rest', 5, 'text'],
    ['trace_id', 6, 'text'],
    ['trace_flags', 7, 'text'],
    ['due_at', 8, 'timestamptz'],
    ['excluded', 9, 'text'],
    ['skip', 10, 'boolean'],
  ] as const;
  const fanned = many
    ? `select * from unnest(${columns.map(([, n, type]) => param(n, type)).join(', ')})
         as f(${columns.map(([name]) => name).join(', ')})`
    : `select ${columns.map(([name, n, type]) => `${param(n, type)} as ${name}`).join(', ')}`;
  return `with ${withEvents ? `events_written as (insert into events (id, tenant_id, type, data, trace, created_at) ${eventRows}),` : ''}
  fanned as (${fanned}),
  targets as (
    select f.*, e.id as endpoint_id, 'whd_' || svc_id_suffix(f.at_ms) as id
      from fanned f
      join webhook_endpoints e on e.tenant_id = $1 and e.enabled
     where not f.skip and e.id is distinct from f.excluded and ${eventTypeMatchSql('e.event_types', 'f.type')}
  )
  insert into webhook_deliveries
    (id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, next_attempt_at, created_at)
  select t.id, $1, t.endpoint_id, t.event_id, t.type, '{"id":"' || t.id || '",' || t.rest, t.trace_id,
         t.trace_flags, t.due_at, t.due_at
    from targets t
  on conflict (tenant_id, endpoint_id, event_id) do nothing
  returning id, event_id`;
}
const FAN_OUT = fanOutSql(false, false);
const EVENT_AND_FAN_OUT = fanOutSql(true, false);
const EVENTS_AND_FAN_OUT = fanOutSql(true, true);

/**
 * `webhook.delivery.dead_lettered` is never sent to the endpoint that failed (`data.endpointId`), and a
 * dead-lettering of such an event is not fanned out at all, so two failing endpoints cannot feed each
 * other dead-letter events forever.
 */
function deadLetterRule(event: WebhookEvent): { excluded: string | null; skip: boolean } {
  if (event.type !== DEAD_LETTERED_EVENT) return { excluded: null, skip: false };
  if (event.data.eventType === DEAD_LETTERED_EVENT) return { excluded: null, skip: true };
  return { excluded: typeof event.data.endpointId === 'string' ? event.data.endpointId : null, skip: false };
}

/** The statement's parameters $1-$10: the tenant, then per column one array entry per event (or a value). */
function fanOutParams(events: readonly WebhookEvent[], dueAt: number | undefined, many: boolean): unknown[] {
  const tenantId = events[0]?.tenantId;
  const columns = {
    id: [] as string[],
    type: [] as string[],
    atMs: [] as number[],
    rest: [] as string[],
    traceId: [] as string[],
    traceFlags: [] as string[],
    due: [] as string[],
    excluded: [] as (string | null)[],
    skip: [] as boolean[],
  };
  for (const event of events) {
    if (event.tenantId !== tenantId) throw new Error('one fan-out statement serves one tenant');
    const createdAt = new Date(event.createdAt);
    if (Number.isNaN(createdAt.getTime()))
      throw new Error(`event ${event.id}: createdAt is not a valid time`);
    const created = createdAt.toISOString();
    const traceId = event.trace?.traceId;
    const rule = deadLetterRule(event);
    columns.id.push(event.id);
    columns.type.push(event.type);
    columns.atMs.push(createdAt.getTime());
    columns.rest.push(JSON.stringify({ type: event.type, created_at: created, data: event.data }).slice(1));
    columns.traceId.push(
      traceId !== undefined && TRACE_ID.test(traceId) ? traceId : randomBytes(16).toString('hex'),
    );
    columns.traceFlags.push(event.trace?.sampled === true ? '01' : '00');
    columns.due.push(new Date(dueAt ?? createdAt.getTime()).toISOString());
    columns.excluded.push(rule.excluded);
    columns.skip.push(rule.skip);
  }
  const values: unknown[][] = Object.values(columns);
  return [tenantId, ...(many ? values : values.map((column) => column[0]))];
}

/**
 * The outbox fan-out: call it inside the transaction that writes the event, so no event commits without
 * its deliveries. One pending delivery per enabled endpoint of the event's tenant whose eventTypes is null
 * or matches, in one statement. Works in a tenant transaction (RLS) or a system one. After commit, wake the
 * worker when the returned list is not empty.
 */
export async function enqueueDeliveries(
  tx: Queryable,
  event: WebhookEvent,
  options: EnqueueOptions = {},
): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(FAN_OUT, fanOutParams([event], options.now, false));
  return rows.map((r) => r.id);
}

/**
 * Writes the rows of events of one tenant and all their deliveries in one statement (one round trip for
 * the whole outbox). Returns the ids of the events that queued any delivery.
 */
export async function insertEventsWithDeliveries(
  tx: Queryable,
  events: readonly TenantEvent[],
): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const many = events.length > 1;
  const data = events.map((e) => JSON.stringify(e.data));
  const trace = events.map((e) => JSON.stringify(e.trace));
  const created = events.map((e) => e.createdAt);
  const { rows } = await tx.query<{ id: string; event_id: string }>(
    many ? EVENTS_AND_FAN_OUT : EVENT_AND_FAN_OUT,
    [
      ...fanOutParams(events, undefined, many),
      ...(many ? [data, trace, created] : [data[0], trace[0], created[0]]),
    ],
  );
  return new Set(rows.map((r) => r.event_id));
}
