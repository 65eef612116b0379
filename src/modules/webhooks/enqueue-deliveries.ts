import type { Queryable } from '../../core/db/database.ts';
import type { OutboxWriter } from '../../core/events/store.ts';
import { deliveryTraceId } from './delivery-rows.ts';
import { type EndpointPresence, endpointsAppearedGuard } from './endpoint-presence.ts';
import { DEAD_LETTERED_EVENT, type WebhookEvent } from './types.ts';

export interface EnqueueOptions {
  /** When the first attempt is due (ms since epoch); default: the event's createdAt, i.e. at once. */
  now?: number;
}

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
    columns.traceId.push(deliveryTraceId(traceId));
    columns.traceFlags.push(event.trace?.sampled === true ? '01' : '00');
    columns.due.push(new Date(dueAt ?? createdAt.getTime()).toISOString());
    columns.excluded.push(rule.excluded);
    columns.skip.push(rule.skip);
  }
  const values: unknown[][] = Object.values(columns);
  return [tenantId, ...(many ? values : values.map((column) => column[0]))];
}

const COLUMNS = [
  ['event_id', 'text'],
  ['type', 'text'],
  ['at_ms', 'bigint'],
  ['rest', 'text'],
  ['trace_id', 'text'],
  ['trace_flags', 'text'],
  ['due_at', 'timestamptz'],
  ['excluded', 'text'],
  ['skip', 'boolean'],
] as const;

/**
 * One statement: a pending delivery per event of one tenant and enabled endpoint whose eventTypes matches,
 * with the delivery ids minted in SQL. A body is `{"id":"<delivery id>",` followed by the rest serialized
 * once here, so it holds exactly the bytes `JSON.stringify({id, type, created_at, data})` would. One event
 * (the usual case) binds plain values; several bind arrays (unnest), which costs more to plan.
 */
function deliveriesStatement(
  events: readonly WebhookEvent[],
  dueAt: number | undefined,
  bind: (value: unknown) => string,
): string {
  const many = events.length > 1;
  const [tenantId, ...columns] = fanOutParams(events, dueAt, many);
  const tenant = bind(tenantId);
  const typed = columns.map((value, i) => {
    const [name, type] = COLUMNS[i] ?? ['', ''];
    return { name, placeholder: `${bind(value)}::${type}${many ? '[]' : ''}` };
  });
  const fanned = many
    ? `select * from unnest(${typed.map((c) => c.placeholder).join(', ')}) as f(${typed.map((c) => c.name).join(', ')})`
    : `select ${typed.map((c) => `${c.placeholder} as ${c.name}`).join(', ')}`;
  return `insert into webhook_deliveries
    (id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, next_attempt_at, created_at)
  select t.id, ${tenant}, t.endpoint_id, t.event_id, t.type, '{"id":"' || t.id || '",' || t.rest, t.trace_id,
         t.trace_flags, t.due_at, t.due_at
    from (select f.*, e.id as endpoint_id, 'whd_' || svc_id_suffix(f.at_ms) as id
            from (${fanned}) f
            join webhook_endpoints e on e.tenant_id = ${tenant} and e.enabled
           where not f.skip and e.id is distinct from f.excluded and ${eventTypeMatchSql('e.event_types', 'f.type')}) t
  on conflict (tenant_id, endpoint_id, event_id) do nothing
  returning id, event_id`;
}

/**
 * The webhooks outbox: the event store runs its statement in the statement that records events, so no
 * event commits without its deliveries; after commit `onQueued` hears which events queued any. With
 * `presence`, a standalone statement for a tenant known to have no enabled endpoint carries only a check
 * (see EndpointPresence).
 */
export function webhookOutbox(
  onQueued: (eventIds: readonly string[]) => void,
  presence?: EndpointPresence,
): OutboxWriter {
  return {
    statement: (events, bind, standalone) => {
      const tenantId = events[0]?.tenantId;
      if (standalone === true && tenantId !== undefined && presence?.none(tenantId) === true)
        return endpointsAppearedGuard(tenantId, bind);
      return deliveriesStatement(events, undefined, bind);
    },
    committed: (rows, tenantId) => {
      presence?.written(tenantId, rows.length);
      onQueued([...new Set(rows.map((row) => String(row.event_id)))]);
    },
    stale: (error, tenantId) => presence?.appeared(error, tenantId) === true,
  };
}

/**
 * Deliveries for an event already recorded (e.g. a test event that is not in the log), inside the
 * caller's transaction; works in a tenant transaction (RLS) or a system one. After commit, wake the
 * worker when the returned list is not empty.
 */
export async function enqueueDeliveries(
  tx: Queryable,
  event: WebhookEvent,
  options: EnqueueOptions = {},
): Promise<string[]> {
  const params: unknown[] = [];
  const sql = deliveriesStatement([event], options.now, (value) => {
    params.push(value);
    return `$${params.length}`;
  });
  const { rows } = await tx.query<{ id: string }>(sql, params);
  return rows.map((r) => r.id);
}
