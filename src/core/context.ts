import type { Principal } from './auth/principal.ts';
import type { Queryable, QueryOptions } from './db/database.ts';
import { tenantRead, tenantTx } from './db/tenant-tx.ts';
import { EventBatch, type OwnStatement } from './events/store.ts';
import type { TenantEvent, TraceActor, TraceMetadata } from './events/types.ts';
import type { ServiceContext } from './services.ts';
import { actorView } from './tenancy/actors.ts';

export type { Origin, SystemContext, TenantContext } from './contexts.ts';
export { type CallParts, type ServiceContext, type Services, serviceContext } from './services.ts';

export type Emit = (type: string, data: Record<string, unknown>) => Promise<TenantEvent | undefined>;

/** An event of a group write (group commit), traced to the call that asked for it. */
export interface GroupEvent {
  /** The call the event belongs to: its principal and trace go into the event's trace metadata. */
  by: ServiceContext;
  type: string;
  data: Record<string, unknown>;
}

/** Writes the events of a group write in one statement, in order; those of disabled modules are left out. */
export type EmitEach = (events: readonly GroupEvent[]) => Promise<void>;

/**
 * Inside a transaction, `statement` (the module's rows) and `events` (as `EmitEach` keeps them) in one
 * statement, one round trip instead of two (see `EventStore.writeWith`). Answers the statement's rows.
 */
export type WriteWithEvents = <Row>(
  events: readonly GroupEvent[],
  statement: OwnStatement,
  options?: QueryOptions,
) => Promise<Row[]>;

/** Who caused an event, as its trace names them: public ids only (see `TraceActor`). */
function traceActor(p: Principal | undefined): TraceActor | undefined {
  switch (p?.kind) {
    case 'session':
      return { kind: 'actor', ...actorView(p.actor) };
    case 'api_key':
      return { kind: 'api_key', id: p.apiKeyId };
    case 'hosted_user':
      return { kind: 'user', id: p.userId };
    default:
      return undefined;
  }
}

export function traceMetadata(ctx: ServiceContext): TraceMetadata {
  const actor = traceActor(ctx.principal);
  return {
    traceId: ctx.trace.traceId,
    spanId: ctx.trace.spanId,
    sampled: ctx.trace.sampled,
    requestId: ctx.requestId,
    origin: ctx.origin,
    ...(actor === undefined ? {} : { actor }),
  };
}

/** Whether the tenant emits events of a type: not those of a module it has disabled. */
async function emittedFor(ctx: ServiceContext): Promise<(type: string) => boolean> {
  const states = await ctx.enablement.states(ctx.tenantId);
  return (type) => {
    const module = ctx.registry.moduleOfEvent(type);
    return module === undefined || states.get(module)?.enabled === true;
  };
}

/**
 * One tenant transaction for a verb: its rows and its events commit together, and the events are
 * published only after the commit. Events of a module the tenant has disabled are not emitted.
 * `emitEach` serves group writes (several calls in one transaction): one statement for all their events.
 * `publish` (default: at once) lets a group commit publish later, after its next group went out.
 */
export async function inTenant<T>(
  ctx: ServiceContext,
  fn: (tx: Queryable, emit: Emit, emitEach: EmitEach, writeWithEvents: WriteWithEvents) => Promise<T>,
  publish: (batch: EventBatch) => void = (batch) => ctx.events.publish(batch),
): Promise<T> {
  const batch = new EventBatch();
  const emitted = await emittedFor(ctx);
  const kept = (events: readonly GroupEvent[]) =>
    events
      .filter((event) => emitted(event.type))
      .map((event) => ({ type: event.type, data: event.data, trace: traceMetadata(event.by) }));
  const result = await tenantTx(ctx.db, { tenantId: ctx.tenantId }, (tx) =>
    fn(
      tx,
      async (type, data) =>
        emitted(type)
          ? ctx.events.insert(tx, ctx.tenantId, { type, data, trace: traceMetadata(ctx) }, batch)
          : undefined,
      async (events) => {
        const written = kept(events);
        if (written.length === 0) return;
        await ctx.events.insertMany(tx, ctx.tenantId, written, batch);
      },
      <Row>(events: readonly GroupEvent[], statement: OwnStatement, options?: QueryOptions) =>
        ctx.events.writeWith<Row>(
          ctx.tenantId,
          kept(events),
          statement,
          (sql, params) => tx.query(sql, params, options),
          batch,
        ),
    ),
  );
  publish(batch);
  return result;
}

/**
 * A write that is one statement (see `EventStore.writeWith`): `statement`, the module's rows, with
 * `events` and the outbox rows they bring, run as the tenant without a transaction around it — on
 * PostgreSQL one round trip on a connection that served the same tenant last, against four for BEGIN,
 * the events, the rows and COMMIT. For writes whose refusal is a constraint the statement breaks (then
 * nothing of it commits). Answers the statement's `returning` rows as JSON values. `publish` as `inTenant`'s.
 * Without `statement`, the events alone (with their outbox rows).
 */
export async function tenantWrite<Row>(
  ctx: ServiceContext,
  events: readonly GroupEvent[],
  statement: OwnStatement | undefined,
  publish: (batch: EventBatch) => void = (batch) => ctx.events.publish(batch),
): Promise<Row[]> {
  const batch = new EventBatch();
  const emitted = await emittedFor(ctx);
  const kept = events.filter((event) => emitted(event.type));
  const rows = await ctx.events.writeWith<Row>(
    ctx.tenantId,
    kept.map((event) => ({ type: event.type, data: event.data, trace: traceMetadata(event.by) })),
    statement,
    (sql, params) => tenantRead(ctx.db, { tenantId: ctx.tenantId }, sql, params),
    batch,
    true,
  );
  publish(batch);
  return rows;
}
