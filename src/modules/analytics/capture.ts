import type { ServiceContext } from '../../core/context.ts';
import type { TenantEvent } from '../../core/events/types.ts';
import { LIMITS } from './schema.ts';
import type { StoredEvent } from './store.ts';

/** An Actor object (`{type, id: "<provider>:<external_id>", identityProvider}`) in an event's data. */
function actorIdIn(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, identityProvider } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof identityProvider === 'string' ? id : undefined;
}

/**
 * The actor a platform event is about: its trace's runtime actor, else the first Actor object in its data
 * (a message's author, a bid's bidder), at the top level or one level down. Its provider-qualified id.
 */
function actorOf(event: TenantEvent): string | null {
  const traced = event.trace.actor;
  if (traced?.kind === 'actor') return traced.id;
  for (const value of Object.values(event.data)) {
    const direct = actorIdIn(value);
    if (direct !== undefined) return direct;
    if (typeof value !== 'object' || value === null) continue;
    for (const inner of Object.values(value)) {
      const id = actorIdIn(inner);
      if (id !== undefined) return id;
    }
  }
  return null;
}

/** The event's data as flat properties: scalars of the top level and one level down (`bid.amount`). */
function flatProperties(data: Record<string, unknown>): Record<string, unknown> {
  // A Map, then own properties: a data key named `__proto__` is a property like any other.
  const out = new Map<string, unknown>();
  const put = (key: string, value: unknown) => {
    if (out.size >= LIMITS.properties || key.length > LIMITS.propertyKeyChars) return;
    if (typeof value === 'string') out.set(key, value.slice(0, LIMITS.propertyStringChars));
    else if (typeof value === 'number' || typeof value === 'boolean') out.set(key, value);
  };
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value)) put(`${key}.${inner}`, v);
    } else put(key, value);
  }
  return Object.fromEntries(out);
}

/**
 * A committed tenant event as an analytics event: `$<type>`, at the event's time, deduplicated by the
 * event's id (so a second delivery of it records nothing). Events without an actor count as `$system`.
 */
export function platformEventRow(ctx: ServiceContext, event: TenantEvent): StoredEvent {
  const ts = Date.parse(event.createdAt);
  const roomId = event.data.roomId;
  return {
    event: `$${event.type}`,
    ts,
    receivedAt: ctx.clock.now(),
    messageId: `$${event.id}`,
    dedupe: true,
    actorId: actorOf(event) ?? '$system',
    anonymousId: null,
    roomId: typeof roomId === 'string' ? roomId.slice(0, LIMITS.idChars) : null,
    properties: flatProperties(event.data),
    context: { source: 'platform', eventId: event.id, requestId: event.trace.requestId },
    clamped: false,
  };
}
