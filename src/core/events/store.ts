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
 * Writes an event's row, and whatever must commit with it (the outbox: webhook deliveries), into the
 * caller's transaction. The app installs one that does both in one statement.
 */
export type EventWriter = (tx: Queryable, event: TenantEvent) => Promise<void>;

/** The event row alone. */
export async function insertEventRow(tx: Queryable, event: TenantEvent): Promise<void> {
  await tx.query(
    'insert into events (id, tenant_id, type, data, trace, created_at) values ($1, $2, $3, $4, $5, $6)',
    [
      event.id,
      event.tenantId,
      event.type,
      JSON.stringify(event.data),
      JSON.stringify(event.trace),
      event.createdAt,
    ],
  );
}

/** Writes events into the caller's transaction (through the writer) and publishes them after commit. */
export class EventStore {
  constructor(
    readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly write: EventWriter = insertEventRow,
  ) {}

  async insert(
    tx: Queryable,
    tenantId: string,
    type: string,
    data: Record<string, unknown>,
    trace: TraceMetadata,
  ): Promise<TenantEvent> {
    const createdAt = this.clock.now();
    const event: TenantEvent = {
      id: newId('event', createdAt),
      tenantId,
      type,
      data,
      createdAt: new Date(createdAt).toISOString(),
      trace,
    };
    await this.write(tx, event);
    return event;
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
