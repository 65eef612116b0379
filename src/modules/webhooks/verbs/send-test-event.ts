import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../../../core/ids.ts';
import { insertDelivery } from '../delivery-rows.ts';
import { findDelivery, findEndpoint } from '../find-rows.ts';
import type { EndpointRef, WebhookDelivery } from '../schema.ts';
import { TEST_EVENT } from '../types.ts';
import { deliveryView } from '../views.ts';

/**
 * Queues a `webhook.test` delivery to this one endpoint, whatever its eventTypes. It is not a tenant
 * event: nothing else receives it. Follows the normal retry schedule; carries the caller's trace.
 */
export async function sendTestEvent(
  ctx: ServiceContext,
  input: Static<typeof EndpointRef>,
): Promise<WebhookDelivery> {
  const now = ctx.clock.now();
  const delivery = await tenantTx(ctx.db, ctx, async (tx) => {
    const endpoint = await findEndpoint(tx, ctx.tenantId, input.id);
    if (!endpoint.enabled) throw new Conflict(`webhook endpoint ${endpoint.id} is disabled; enable it first`);
    const id = await insertDelivery(
      tx,
      {
        tenantId: ctx.tenantId,
        endpointId: endpoint.id,
        eventId: newId('event', now),
        eventType: TEST_EVENT,
        data: { endpointId: endpoint.id, message: 'A test event sent from svc to check this endpoint.' },
        eventCreatedAt: new Date(now).toISOString(),
        traceId: ctx.trace.traceId,
        sampled: ctx.trace.sampled,
      },
      now,
    );
    return deliveryView(await findDelivery(tx, ctx.tenantId, id));
  });
  ctx.workers.wake('webhooks');
  return delivery;
}
