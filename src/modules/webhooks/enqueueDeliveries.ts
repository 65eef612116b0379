import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../core/db/database.ts';
import { insertEventRow } from '../../core/events/store.ts';
import type { TenantEvent } from '../../core/events/types.ts';
import { DEAD_LETTERED_EVENT, type WebhookEvent } from './types.ts';

export interface EnqueueOptions {
  /** Endpoints that must not receive this event. */
  excludeEndpointIds?: readonly string[];
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
 * One statement: (optionally) the event row, and one pending delivery per enabled endpoint of the tenant
 * whose eventTypes matches, minting the delivery ids in SQL. The body is `{"id":"<delivery id>",` followed by
 * the rest serialized once here, so it holds exactly the bytes `JSON.stringify({id, type, created_at, data})`
 * would.
 */
function fanOutSql(withEvent: boolean): string {
  return `with ${withEvent ? 'event as (insert into events (id, tenant_id, type, data, trace, created_at) values ($1, $2, $3, $10, $11, $12)),' : ''}
  targets as (
    select e.id as endpoint_id, 'whd_' || svc_id_suffix($4) as id
    from webhook_endpoints e
    where e.tenant_id = $2 and e.enabled and e.id <> all($5::text[]) and ${eventTypeMatchSql('e.event_types', '$3')}
  )
  insert into webhook_deliveries
    (id, tenant_id, endpoint_id, event_id, event_type, body, trace_id, trace_flags, next_attempt_at, created_at)
  select t.id, $2, t.endpoint_id, $1, $3, '{"id":"' || t.id || '",' || $6, $7, $8, $9, $9 from targets t
  on conflict (tenant_id, endpoint_id, event_id) do nothing
  returning id`;
}
const FAN_OUT = fanOutSql(false);
const EVENT_AND_FAN_OUT = fanOutSql(true);

function fanOutParams(
  event: WebhookEvent,
  excluded: readonly string[],
  dueAt: number | undefined,
): unknown[] {
  const createdAt = new Date(event.createdAt);
  if (Number.isNaN(createdAt.getTime())) throw new Error(`event ${event.id}: createdAt is not a valid time`);
  const created = createdAt.toISOString();
  const rest = JSON.stringify({ type: event.type, created_at: created, data: event.data }).slice(1);
  const traceId = event.trace?.traceId;
  return [
    event.id,
    event.tenantId,
    event.type,
    createdAt.getTime(),
    excluded,
    rest,
    traceId !== undefined && TRACE_ID.test(traceId) ? traceId : randomBytes(16).toString('hex'),
    event.trace?.sampled === true ? '01' : '00',
    new Date(dueAt ?? createdAt.getTime()).toISOString(),
  ];
}

/**
 * The endpoints an event must skip, or null when it must not be fanned out at all:
 * `webhook.delivery.dead_lettered` is never sent to the endpoint that failed (`data.endpointId`), and a
 * dead-lettering of such an event is not fanned out, so two failing endpoints cannot feed each other
 * dead-letter events forever.
 */
function exclusions(event: WebhookEvent, options: EnqueueOptions): string[] | null {
  const excluded = [...(options.excludeEndpointIds ?? [])];
  if (event.type === DEAD_LETTERED_EVENT) {
    if (event.data.eventType === DEAD_LETTERED_EVENT) return null;
    if (typeof event.data.endpointId === 'string') excluded.push(event.data.endpointId);
  }
  return excluded;
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
  const excluded = exclusions(event, options);
  if (excluded === null) return [];
  const { rows } = await tx.query<{ id: string }>(FAN_OUT, fanOutParams(event, excluded, options.now));
  return rows.map((r) => r.id);
}

/**
 * Writes the event row and its deliveries in one statement (one round trip for the whole outbox).
 * Returns the ids of the deliveries queued.
 */
export async function insertEventWithDeliveries(tx: Queryable, event: TenantEvent): Promise<string[]> {
  const excluded = exclusions(event, {});
  if (excluded === null) {
    await insertEventRow(tx, event);
    return [];
  }
  const { rows } = await tx.query<{ id: string }>(EVENT_AND_FAN_OUT, [
    ...fanOutParams(event, excluded, undefined),
    JSON.stringify(event.data),
    JSON.stringify(event.trace),
    event.createdAt,
  ]);
  return rows.map((r) => r.id);
}
