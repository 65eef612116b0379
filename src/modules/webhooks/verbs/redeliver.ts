import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { Conflict } from '../../../core/http/errors.ts';

import { findDelivery, findEndpoint } from '../find-rows.ts';
import { deliveryNotFound } from '../retention.ts';
import type { DeliveryRef, WebhookDelivery } from '../schema.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, deliveryView } from '../views.ts';

/**
 * Sends a delivered or dead-lettered delivery again: same id, same body bytes, a new attempt cycle with
 * the full retry schedule. Earlier attempts stay in the history. A delivery deleted by retention is 404.
 */
export async function redeliver(
  ctx: ServiceContext,
  input: Static<typeof DeliveryRef>,
): Promise<WebhookDelivery> {
  const delivery = await tenantTx(ctx.db, ctx, async (tx) => {
    const current = await findDelivery(tx, ctx.tenantId, input.id, {
      forUpdate: true,
      notFound: (id) => deliveryNotFound(ctx, id),
    });
    if (current.state === 'pending') throw new Conflict(`webhook delivery ${current.id} is still pending`);
    const endpoint = await findEndpoint(tx, ctx.tenantId, current.endpoint_id);
    if (!endpoint.enabled) throw new Conflict(`webhook endpoint ${endpoint.id} is disabled; enable it first`);
    const { rows } = await tx.query<DeliveryRow>(
      `update webhook_deliveries
          set state = 'pending', cycle = cycle + 1, cycle_attempt_count = 0, next_attempt_at = $3,
              delivered_at = null, dead_lettered_at = null
        where tenant_id = $1 and id = $2
        returning ${DELIVERY_COLUMNS}`,
      [ctx.tenantId, current.id, new Date(ctx.clock.now()).toISOString()],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('update returned no row');
    return deliveryView(row);
  });
  ctx.workers.wake('webhooks');
  return delivery;
}
