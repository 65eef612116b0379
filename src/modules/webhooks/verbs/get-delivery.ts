import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';

import { findDelivery } from '../find-rows.ts';
import { deliveryRequest } from '../request-view.ts';
import { deliveryNotFound } from '../retention.ts';
import type { DeliveryRef, WebhookDeliveryDetail } from '../schema.ts';
import { ATTEMPT_COLUMNS, type AttemptRow, attemptView, deliveryView } from '../views.ts';

/** One delivery with its exact body, the request's headers and every attempt, oldest first. */
export async function getDelivery(
  ctx: ServiceContext,
  input: Static<typeof DeliveryRef>,
): Promise<WebhookDeliveryDetail> {
  return tenantTx(ctx.db, ctx, async (tx) => {
    const row = await findDelivery(tx, ctx.tenantId, input.id, {
      notFound: (id) => deliveryNotFound(ctx, id),
    });
    const { rows: attempts } = await tx.query<AttemptRow>(
      `select ${ATTEMPT_COLUMNS} from webhook_attempts where tenant_id = $1 and delivery_id = $2 order by attempt`,
      [ctx.tenantId, row.id],
    );
    const request = await deliveryRequest(tx, ctx.tenantId, row);
    return { ...deliveryView(row), body: row.body, request, attempts: attempts.map(attemptView) };
  });
}
