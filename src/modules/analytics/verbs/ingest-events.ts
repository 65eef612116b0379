import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { AppError, InvalidRequest } from '../../../core/http/errors.ts';
import { prepareEvent, Refused } from '../ingest/prepare-event.ts';
import { storeEvents } from '../ingest/store-events.ts';
import type { IngestBody, IngestResult } from '../schema.ts';
import { LIMITS } from '../schema.ts';
import { analyticsConfig } from '../settings.ts';
import type { StoredEvent } from '../store.ts';

type Result = Static<typeof IngestResult>;
type Rejection = Result['rejections'][number];

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
      rows.push(prepareEvent(ctx, item, index, now, retentionDays));
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
  ctx.metrics?.analyticsIngested(rows.length - duplicates.size, duplicates.size, rejections.length);
  return {
    accepted: rows.length - duplicates.size,
    duplicates: duplicates.size,
    rejected: rejections.length,
    rejections,
    receivedAt: new Date(now).toISOString(),
  };
}
