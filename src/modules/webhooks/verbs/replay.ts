import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { Conflict, InvalidRequest } from '../../../core/http/errors.ts';
import { validated } from '../../../core/modules/validate.ts';
import { findEndpoint } from '../find-rows.ts';
import { ReplayBody, type ReplayInput, type WebhookReplay } from '../replay-schema.ts';

/**
 * Sends every dead-lettered delivery of one endpoint created in [since, until) again, as `redeliver` does
 * for one: same id and bytes, a new attempt cycle. Idempotent: a delivery it queued is pending, so a repeat
 * (or a retry of a lost answer) finds nothing more to queue until those dead-letter again.
 */
export async function replayDeadLettered(ctx: ServiceContext, input: ReplayInput): Promise<WebhookReplay> {
  const { id, ...fields } = input;
  const body = validated<Omit<ReplayInput, 'id'>>(ReplayBody, fields, 'body');
  const now = new Date(ctx.clock.now()).toISOString();
  const until = body.until ?? now;
  if (Date.parse(until) <= Date.parse(body.since)) {
    throw new InvalidRequest('until must be after since', [
      { field: '/body/until', message: 'must be after since', code: 'range' },
    ]);
  }
  const queued = await tenantTx(ctx.db, ctx, async (tx) => {
    const endpoint = await findEndpoint(tx, ctx.tenantId, id, { forUpdate: true });
    if (!endpoint.enabled) throw new Conflict(`webhook endpoint ${endpoint.id} is disabled; enable it first`);
    const { rows } = await tx.query<{ id: string }>(
      `update webhook_deliveries
          set state = 'pending', cycle = cycle + 1, cycle_attempt_count = 0, next_attempt_at = $5,
              delivered_at = null, dead_lettered_at = null
        where tenant_id = $1 and endpoint_id = $2 and state = 'dead_lettered'
          and created_at >= $3 and created_at < $4
        returning id`,
      [ctx.tenantId, endpoint.id, body.since, until, now],
    );
    return rows.length;
  });
  if (queued > 0) ctx.workers.wake('webhooks');
  return { endpointId: id, queued };
}
