import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { isAppError } from '../../../core/http/errors.ts';
import { validated } from '../../../core/modules/validate.ts';
import { newId } from '../ids.ts';
import { ACTOR_ID_REPLACED, AnalyticsEventInput, LIMITS } from '../schema.ts';
import type { StoredEvent } from '../store.ts';

type EventInput = Static<typeof AnalyticsEventInput>;

const DAY = 86_400_000;

/** An event refused for a reason the client can fix; the rest of its batch goes on. */
export class Refused extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** Nesting depth of a JSON value (a scalar is 0). */
function depth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depth(child));
  return deepest + 1;
}

/** The first string in a JSON value longer than `max`, as its path. */
function longString(value: unknown, max: number, path: string): string | undefined {
  if (typeof value === 'string') return value.length > max ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = longString(child, max, `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function checkProperties(properties: Record<string, unknown>): void {
  const keys = Object.keys(properties);
  if (keys.length > LIMITS.properties) {
    throw new Refused(
      'too_many_properties',
      `${keys.length} properties: at most ${LIMITS.properties} per event`,
    );
  }
  const longKey = keys.find((k) => k.length === 0 || k.length > LIMITS.propertyKeyChars);
  if (longKey !== undefined) {
    throw new Refused(
      'invalid_property_key',
      `property keys are 1 to ${LIMITS.propertyKeyChars} characters: ${JSON.stringify(longKey.slice(0, 40))}`,
    );
  }
  if (depth(properties) > LIMITS.propertyDepth) {
    throw new Refused('properties_too_deep', `properties nest at most ${LIMITS.propertyDepth} levels deep`);
  }
  const long = longString(properties, LIMITS.propertyStringChars, 'properties');
  if (long !== undefined) {
    throw new Refused('property_too_long', `${long} is longer than ${LIMITS.propertyStringChars} characters`);
  }
}

/**
 * Who the event is recorded for, as the credential allows: a session token only as its own actor. The
 * actor's provider-qualified id is what is stored (and what queries filter and count by).
 */
function identity(
  ctx: ServiceContext,
  input: EventInput,
): { actorId: string | null; anonymousId: string | null } {
  const principal = ctx.principal;
  const anonymousId = input.anonymousId ?? null;
  if (principal?.kind === 'session') {
    const own = principal.actor.externalId;
    if (input.actor !== undefined && input.actor.id !== own) {
      throw new Refused('actor_mismatch', `a session token records events only as its own actor (${own})`);
    }
    return { actorId: own, anonymousId };
  }
  const actorId = input.actor?.id ?? null;
  if (actorId === null && anonymousId === null) {
    throw new Refused('missing_identity', 'give actor or anonymousId');
  }
  return { actorId, anonymousId };
}

/** One batch item as a row to store, or why not (`Refused`, with the reason). */
export function prepareEvent(
  ctx: ServiceContext,
  item: unknown,
  index: number,
  now: number,
  retentionDays: number,
): StoredEvent {
  if (Buffer.byteLength(JSON.stringify(item) ?? '', 'utf8') > LIMITS.eventBytes) {
    throw new Refused('event_too_large', `an event is at most ${LIMITS.eventBytes} bytes of JSON`);
  }
  if (typeof item === 'object' && item !== null && Object.hasOwn(item, 'actorId')) {
    throw new Refused('invalid_event', ACTOR_ID_REPLACED);
  }
  let input: EventInput;
  try {
    input = validated<EventInput>(AnalyticsEventInput, item, `batch[${index}]`);
  } catch (error) {
    if (isAppError(error)) throw new Refused('invalid_event', error.message);
    throw error;
  }
  if (input.event.startsWith('$')) {
    throw new Refused('reserved_event_name', 'event names starting with $ are the platform’s own');
  }
  const { actorId, anonymousId } = identity(ctx, input);
  const properties = input.properties ?? {};
  checkProperties(properties);
  let ts = now;
  let clamped = false;
  if (input.timestamp !== undefined) {
    const sent = Date.parse(input.timestamp);
    if (Number.isNaN(sent)) {
      // The date-time format lets a leap second (23:59:60) through; Date cannot read it.
      throw new Refused(
        'invalid_timestamp',
        `timestamp ${JSON.stringify(input.timestamp)} is not a time the service can read (a leap second, :60, is not supported)`,
      );
    }
    if (sent > now + LIMITS.futureSkewMs) clamped = true;
    else if (sent < now - retentionDays * DAY) {
      throw new Refused(
        'timestamp_too_old',
        `timestamp is older than the tenant's retention (${retentionDays} days): it would be deleted at once`,
      );
    } else ts = sent;
  }
  return {
    event: input.event,
    ts,
    receivedAt: now,
    messageId: input.messageId ?? newId('analyticsEvent', now),
    dedupe: input.messageId !== undefined,
    actorId,
    anonymousId,
    roomId:
      input.roomId ??
      (typeof properties.roomId === 'string' ? properties.roomId.slice(0, LIMITS.idChars) : null),
    properties,
    context: input.context ?? null,
    clamped,
  };
}
