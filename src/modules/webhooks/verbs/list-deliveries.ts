import type { ServiceContext } from '../../../core/context.ts';
import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { listPage } from '../../../core/http/list-page.ts';
import { validated } from '../../../core/modules/validate.ts';
import { findEndpoint } from '../find-rows.ts';
import { isEventType, rejectProblems } from '../input-rules.ts';
import { ListDeliveriesInput, type WebhookDeliveryPage } from '../schema.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, deliveryView } from '../views.ts';

/**
 * Newest first; one endpoint's deliveries (it must exist) or, without endpointId, all of the tenant's;
 * filtered by state, exact event type and creation time (`since` inclusive, `until` exclusive).
 */
export async function listDeliveries(
  ctx: ServiceContext,
  input: ListDeliveriesInput = {},
): Promise<WebhookDeliveryPage> {
  const query = validated<ListDeliveriesInput>(ListDeliveriesInput, input, 'query');
  const { endpointId, state, eventType, since, until } = query;
  if (eventType !== undefined && !isEventType(eventType)) {
    rejectProblems([
      { field: '/query/eventType', message: 'must be an event type like room.created', code: 'pattern' },
    ]);
  }
  if (endpointId !== undefined)
    await tenantTx(ctx.db, ctx, (tx) => findEndpoint(tx, ctx.tenantId, endpointId));
  return listPage(ctx, query, {
    select: `select ${DELIVERY_COLUMNS} from webhook_deliveries`,
    orderBy: 'id',
    textKey: true,
    keyOf: (row: DeliveryRow) => row.id,
    view: deliveryView,
    filters: (bind) => [
      ...(endpointId === undefined ? [] : [`endpoint_id = ${bind(endpointId)}`]),
      ...(state === undefined ? [] : [`state = ${bind(state)}`]),
      ...(eventType === undefined ? [] : [`event_type = ${bind(eventType)}`]),
      ...(since === undefined ? [] : [`created_at >= ${bind(since)}::timestamptz`]),
      ...(until === undefined ? [] : [`created_at < ${bind(until)}::timestamptz`]),
    ],
  });
}
