import type { Clock } from '../clock.ts';
import type { Queryable, QueryResult } from '../db/database.ts';
import { newId } from '../ids.ts';
import { inSpan, inSpanSync, type SpanAttributes, tracingOn } from '../ops/tracing/spans.ts';
import type { EventBus } from './bus.ts';
import { followUpsOf, type OutboxWriter, type OwnStatement, outboxStatement } from './outbox.ts';
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

export type { Bind, OutboxWriter, OwnStatement } from './outbox.ts';

/** Events written in one transaction: published, with their writers' follow-ups, once it has committed. */
export class EventBatch {
  readonly events: TenantEvent[] = [];
  readonly followUps: (() => void)[] = [];
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
  return followUpsOf(statement, rows[0], first.tenantId);
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
   * statement writes the events and their outbox rows only (and answers no rows). `standalone`: `run`
   * is not inside a transaction, so a writer may assume (see OutboxWriter.stale).
   */
  async writeWith<Row>(
    tenantId: string,
    items: readonly NewEvent[],
    own: OwnStatement | undefined,
    run: (sql: string, params: readonly unknown[]) => Promise<QueryResult<Record<string, unknown>>>,
    batch: EventBatch,
    standalone = false,
  ): Promise<Row[]> {
    const events = this.build(tenantId, items);
    const attempt = async () => {
      const statement = outboxStatement(tenantId, events, this.writers(), own, standalone);
      const { rows } = await inSpan(
        'outbox.write',
        () => run(statement.sql, statement.params),
        tracingOn() ? eventAttributes(events) : undefined,
      );
      return { statement, row: rows[0] as Record<string, Record<string, unknown>[]> | undefined };
    };
    let written: Awaited<ReturnType<typeof attempt>>;
    try {
      written = await attempt();
    } catch (error) {
      // Nothing of it committed; a writer that assumed wrong builds its part again (once).
      if (!standalone || !this.writers().some((writer) => writer.stale?.(error, tenantId) === true))
        throw error;
      written = await attempt();
    }
    batch.events.push(...events);
    batch.followUps.push(...followUpsOf(written.statement, written.row, tenantId));
    return (written.row?.own ?? []) as Row[];
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
