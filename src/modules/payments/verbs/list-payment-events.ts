import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { type EventRow, eventToWire, toEvent } from '../../../core/events/store.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { PageInput } from '../../../core/http/pagination.ts';
import type { PaymentRef } from '../schema/payment.ts';
import { getPayment } from './get-payment.ts';

/**
 * A payment's timeline: the `payment.*` and `refund.*` events about it, oldest first, as `GET /v1/events`
 * shows them (within the event log's retention). None can be older than the payment, which bounds the
 * scan to the tenant's events of these types since it was created.
 */
export async function listPaymentEvents(ctx: ServiceContext, input: Static<typeof PaymentRef> & PageInput) {
  const payment = await getPayment(ctx, input);
  return listPage(ctx, input, {
    select: 'select e.id, e.tenant_id, e.type, e.data, e.trace, e.created_at from events e',
    orderBy: 'e.id',
    textKey: true,
    ascending: true,
    keyOf: (row: EventRow) => row.id,
    filters: (bind) => [
      `(e.type like 'payment.%' or e.type like 'refund.%')`,
      `e.created_at >= ${bind(payment.createdAt)}::timestamptz`,
      `e.data ->> 'paymentId' = ${bind(input.paymentId)}`,
    ],
    view: (row: EventRow) => eventToWire(toEvent(row)),
  });
}
