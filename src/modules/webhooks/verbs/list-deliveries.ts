import { tenantTx } from '../../../core/db/tenant-tx.ts';
import { findEndpoint } from '../endpoint-rows.ts';
import { isEventType } from '../event-types.ts';
import {
  DELIVERY_STATES,
  type DeliveryState,
  type Page,
  type WebhookCtx,
  type WebhookDelivery,
} from '../types.ts';
import { checkCursor, checkLimit, Problems } from '../validate.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, deliveryView } from '../views.ts';

export interface ListDeliveriesInput {
  /** One endpoint's deliveries; absent = all of the tenant's. */
  endpointId?: string;
  state?: DeliveryState;
  eventType?: string;
  /** 1 to 100, default 50. */
  limit?: number;
  cursor?: string | null;
}

/** Newest first. */
export async function listDeliveries(
  ctx: WebhookCtx,
  input: ListDeliveriesInput = {},
): Promise<Page<WebhookDelivery>> {
  const problems = new Problems();
  const limit = checkLimit(problems, '/query/limit', input.limit);
  const cursor = checkCursor(problems, '/query/cursor', 'webhookDelivery', input.cursor);
  if (input.state !== undefined && !DELIVERY_STATES.includes(input.state)) {
    problems.add('/query/state', `must be one of ${DELIVERY_STATES.join(', ')}`, 'enum');
  }
  if (
    input.eventType !== undefined &&
    !(typeof input.eventType === 'string' && isEventType(input.eventType))
  ) {
    problems.add('/query/eventType', 'must be an event type like room.created', 'pattern');
  }
  problems.throwIfAny();

  const rows = await tenantTx(ctx.db, ctx, async (tx) => {
    if (input.endpointId !== undefined) await findEndpoint(tx, ctx.tenantId, input.endpointId);
    const result = await tx.query<DeliveryRow>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
        where tenant_id = $1
          and ($2::text is null or endpoint_id = $2)
          and ($3::text is null or state = $3)
          and ($4::text is null or event_type = $4)
          and ($5::text is null or id < $5)
        order by id desc limit $6`,
      [
        ctx.tenantId,
        input.endpointId ?? null,
        input.state ?? null,
        input.eventType ?? null,
        cursor ?? null,
        limit + 1,
      ],
    );
    return result.rows;
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(deliveryView),
    nextCursor: rows.length > limit && last !== undefined ? last.id : null,
  };
}
