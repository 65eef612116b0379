import type { ServiceContext } from '../../core/context.ts';
import { AppError } from '../../core/http/errors.ts';
import { idTimestamp } from '../../core/ids.ts';
import type { RetentionRule } from '../../core/modules/manifest.ts';
import { describeAge, retentionAgeMs } from '../../core/retention/rules.ts';
import { isId } from './ids.ts';

/**
 * Finished deliveries (delivered or dead-lettered) and their attempts are history; pending ones are work
 * and are never deleted. Redelivery works until the delivery is deleted.
 */
export const DELIVERY_RETENTION: RetentionRule = {
  name: 'webhook_deliveries',
  description:
    'Delivered and dead-lettered webhook deliveries with their attempts, counted from their last attempt; pending deliveries are never deleted. Past it a delivery can no longer be read or redelivered (404).',
  table: 'webhook_deliveries',
  timeColumn: 'last_attempt_at',
  defaultAgeMs: 30 * 86_400_000,
  where: "state <> 'pending'",
};

/**
 * The 404 for a delivery id this tenant does not have. When the id itself is older than the retention
 * (ids carry their creation time), the delivery may have been deleted: the message says so. Nothing about
 * the database is revealed, only what the id says.
 */
export function deliveryNotFound(ctx: Pick<ServiceContext, 'config' | 'clock'>, id: string): AppError {
  const ageMs = retentionAgeMs(ctx.config.retention, DELIVERY_RETENTION);
  const old = ageMs !== null && isId('webhookDelivery', id) && idTimestamp(id) < ctx.clock.now() - ageMs;
  const why = old ? `; finished deliveries are deleted ${describeAge(ageMs)} after their last attempt` : '';
  return new AppError('not_found', `webhook delivery ${id} not found${why}`);
}
