import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import type { GroupWriter } from '../../../core/db/group-commit.ts';
import { AppError, InvalidRequest, isAppError } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { validated } from '../../../core/modules/validate.ts';
import { AnalyticsEventInput, type IngestBody, type IngestResult, LIMITS } from '../schema.ts';
import type { StoredEvent } from '../store.ts';
import { analyticsConfig, analyticsStore } from './config.ts';

type Result = Static<typeof IngestResult>;
type Rejection = Result['rejections'][number];
type EventInput = Static<typeof AnalyticsEventInput>;

const DAY = 86_400_000;

/** An event refused for a reason the client can fix; the rest of its batch goes on. */
class Refused extends Error {
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

/** Who the event is recorded for, as the credential allows: a session token only as its own actor. */
function identity(
  ctx: ServiceContext,
  input: EventInput,
): { actorId: string | null; anonymousId: string | null } {
  const principal = ctx.principal;
  const anonymousId = input.anonymousId ?? null;
  if (principal?.kind === 'session') {
    const own = principal.actor.externalId;
    if (input.actorId !== undefined && input.actorId !== own) {
      throw new Refused('actor_mismatch', `a session token records events only as its own actor (${own})`);
    }
    return { actorId: own, anonymousId };
  }
  const actorId = input.actorId ?? null;
  if (actorId === null && anonymousId === null) {
    throw new Refused('missing_identity', 'give actorId or anonymousId');
  }
  return { actorId, anonymousId };
}

/** One batch item as a row to store, or why not. */
function prepare(
  ctx: ServiceContext,
  item: unknown,
  index: number,
  now: number,
  retentionDays: number,
): StoredEvent {
  if (Buffer.byteLength(JSON.stringify(item) ?? '', 'utf8') > LIMITS.eventBytes) {
    throw new Refused('event_too_large', `an event is at most ${LIMITS.eventBytes} bytes of JSON`);
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

interface QueuedIngest {
  ctx: ServiceContext;
  rows: StoredEvent[];
}

/**
 * Ingestion in one tenant is group-committed: its hourly rollup rows are hot (every event of an hour adds
 * to one), so requests arriving while one insert commits are written together by the next.
 */
const INGEST_WRITER: GroupWriter<QueuedIngest, ReadonlySet<number>> = {
  async writeGroup(group) {
    const first = group[0];
    if (first === undefined) return [];
    // A messageId twice in the group: the first is written, the later ones are duplicates.
    const seen = new Set<string>();
    const rows: StoredEvent[] = [];
    const owners: { item: number; pos: number }[] = [];
    const early: Set<number>[] = group.map(() => new Set<number>());
    group.forEach((queued, item) => {
      queued.rows.forEach((row, pos) => {
        if (row.dedupe && seen.has(row.messageId)) {
          early[item]?.add(pos);
          return;
        }
        if (row.dedupe) seen.add(row.messageId);
        rows.push(row);
        owners.push({ item, pos });
      });
    });
    const { duplicates } = await analyticsStore.insert(first.ctx, rows);
    for (const at of duplicates) {
      const owner = owners[at];
      if (owner !== undefined) early[owner.item]?.add(owner.pos);
    }
    return early;
  },
  maxGroup: 16,
};

/** Writes rows of one tenant through its group-commit queue; answers the positions that were duplicates. */
export function storeEvents(ctx: ServiceContext, rows: StoredEvent[]): Promise<ReadonlySet<number>> {
  return ctx.groupCommit.queue('analytics.ingest', INGEST_WRITER).submit(ctx.tenantId, { ctx, rows });
}

/**
 * Records one event or a batch. A batch is not all-or-nothing: each event is accepted, a duplicate (its
 * messageId was seen in the tenant), or rejected with a reason. A single event that is rejected is a 400
 * (403 when a session token names another actor).
 */
export async function ingestEvents(ctx: ServiceContext, body: Static<typeof IngestBody>): Promise<Result> {
  const { batch, ...single } = body;
  if (batch !== undefined && Object.keys(single).length > 0) {
    throw new InvalidRequest('send either one event or {batch: [...]}, not both', [
      { field: '/body', message: 'event fields beside batch', code: 'batch_and_event' },
    ]);
  }
  if (batch !== undefined && batch.length > LIMITS.batchEvents) {
    throw new InvalidRequest(
      `a batch holds at most ${LIMITS.batchEvents} events; this one has ${batch.length}`,
      [{ field: '/body/batch', message: `at most ${LIMITS.batchEvents} events`, code: 'batch_too_large' }],
    );
  }
  const items: unknown[] = batch ?? [single];
  const now = ctx.clock.now();
  const { retentionDays } = await analyticsConfig(ctx);
  const rejections: Rejection[] = [];
  const rows: StoredEvent[] = [];
  items.forEach((item, index) => {
    try {
      rows.push(prepare(ctx, item, index, now, retentionDays));
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const messageId =
        typeof item === 'object' && item !== null && 'messageId' in item && typeof item.messageId === 'string'
          ? item.messageId.slice(0, LIMITS.idChars)
          : undefined;
      rejections.push({
        index,
        reason: error.reason,
        message: error.message,
        ...(messageId === undefined ? {} : { messageId }),
      });
    }
  });
  const [only] = rejections;
  if (batch === undefined && only !== undefined) {
    if (only.reason === 'actor_mismatch') throw new AppError('forbidden', only.message);
    throw new InvalidRequest(only.message, [{ field: '/body', message: only.message, code: only.reason }]);
  }
  const duplicates = rows.length === 0 ? new Set<number>() : await storeEvents(ctx, rows);
  return {
    accepted: rows.length - duplicates.size,
    duplicates: duplicates.size,
    rejected: rejections.length,
    rejections,
    receivedAt: new Date(now).toISOString(),
  };
}
