import type { Queryable } from '../../../core/db/database.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { NotFound } from '../../../core/http/errors.ts';
import { isId } from '../../../core/ids.ts';
import type { WebhookCtx, WebhookDeliveryDetail } from '../types.ts';
import {
  ATTEMPT_COLUMNS,
  type AttemptRow,
  attemptView,
  DELIVERY_COLUMNS,
  type DeliveryRow,
  deliveryView,
} from '../views.ts';

export async function findDelivery(
  tx: Queryable,
  tenantId: string,
  id: unknown,
  options: { forUpdate?: boolean } = {},
): Promise<DeliveryRow & { body: string }> {
  if (!isId('webhookDelivery', id))
    throw new NotFound('webhook delivery', typeof id === 'string' && id.length <= 64 ? id : undefined);
  const { rows } = await tx.query<DeliveryRow & { body: string }>(
    `select ${DELIVERY_COLUMNS}, body from webhook_deliveries where tenant_id = $1 and id = $2
     ${options.forUpdate === true ? 'for update' : ''}`,
    [tenantId, id],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFound('webhook delivery', id);
  return row;
}

/** One delivery with its exact body and every attempt, oldest first. */
export async function getDelivery(ctx: WebhookCtx, input: { id: string }): Promise<WebhookDeliveryDetail> {
  return tenantTx(ctx.db, ctx, async (tx) => {
    const row = await findDelivery(tx, ctx.tenantId, input.id);
    const { rows: attempts } = await tx.query<AttemptRow>(
      `select ${ATTEMPT_COLUMNS} from webhook_attempts where tenant_id = $1 and delivery_id = $2 order by attempt`,
      [ctx.tenantId, row.id],
    );
    return { ...deliveryView(row), body: row.body, attempts: attempts.map(attemptView) };
  });
}
