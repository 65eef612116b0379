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
 * Writes events' rows, and whatever must commit with them (the outbox: webhook deliveries), into the
 * caller's transaction. The app installs one that does both in one statement.
 */
export type EventWriter = (tx: Queryable, events: readonly TenantEvent[]) => Promise<void>;

/** The event rows alone, in one statement. */
export async function insertEventRows(tx: Queryable, events: readonly TenantEvent[]): Promise<void> {
  const [only] = events;
  if (only === undefined) return;
  const columns = 'insert into events (id, tenant_id, type, data, trace, created_at)';
  const row = (e: TenantEvent) => [
    e.id,
    e.tenantId,
    e.type,
    JSON.stringify(e.data),
    JSON.stringify(e.trace),
    e.createdAt,
  ];
  if (events.length === 1) {
    // Plain values plan faster than arrays.
    await tx.query(`${columns} values ($1, $2, $3, $4, $5, $6)`, row(only));
    return;
  }
  const rows = events.map(row);
  await tx.query(
    `${columns} select * from unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::timestamptz[])`,
    [0, 1, 2, 3, 4, 5].map((i) => rows.map((r) => r[i])),
  );
}

export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  trace: TraceMetadata;
}

/** Writes events into the caller's transaction (through the writer) and publishes them after commit. */
export class EventStore {
  constructor(
    readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly write: EventWriter = insertEventRows,
  ) {}

  async insert(
    tx: Queryable,
    tenantId: string,
    type: string,
    data: Record<string, unknown>,
    trace: TraceMetadata,
  ): Promise<TenantEvent> {
    const [event] = await this.insertMany(tx, tenantId, [{ type, data, trace }]);
    if (event === undefined) throw new Error('insertMany returned no event');
    return event;
  }

  /** Several events of one tenant in one write (one statement with the app's writer), in order. */
  async insertMany(tx: Queryable, tenantId: string, items: readonly NewEvent[]): Promise<TenantEvent[]> {
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
    await this.write(tx, events);
    return events;
  }

  publishCommitted(events: readonly TenantEvent[]): void {
    for (const event of events) this.bus.publish(event);
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
