import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { customerActor, type Page, paymentsSuite, type RefundView } from './support.ts';

interface TimelineEvent {
  id: string;
  type: string;
  data: { paymentId: string; refundId?: string; payment?: { status: string } };
  created_at: string;
}

describe('payments: a payment’s timeline (GET /v1/payments/:paymentId/events)', () => {
  const s = paymentsSuite();

  test('its payment.* and refund.* events, oldest first, no other payment’s, paged', async () => {
    const payment = await s.authorized({ amount: 3000, customer: customerActor('test:timeline') });
    // Another payment's events in between must not show.
    await s.paidPayment({ amount: 500 });
    const capture = await s.post(`/v1/payments/${payment.id}/capture`, { amountToCapture: 2000 });
    assert.equal(capture.statusCode, 200, capture.body);
    const refund = await s.refund(payment.id, { amount: 700 });
    assert.equal(refund.statusCode, 201, refund.body);
    const refundId = refund.json<RefundView>().id;

    const all = await s.allPages<TimelineEvent>(`/v1/payments/${payment.id}/events`);
    assert.deepEqual(
      all.map((e) => e.type),
      await s.eventsOf(payment.id),
      'the same as the event log says',
    );
    assert.deepEqual(
      all.map((e) => e.type),
      [
        'payment.created',
        'payment.amount_capturable_updated',
        'payment.succeeded',
        'refund.created',
        'refund.succeeded',
      ],
    );
    assert.ok(all.every((e) => e.data.paymentId === payment.id));
    assert.equal(all.at(-1)?.data.refundId, refundId);
    assert.deepEqual(
      all.map((e) => e.id),
      [...all.map((e) => e.id)].sort(),
      'oldest first',
    );

    const first = (await s.get(`/v1/payments/${payment.id}/events?limit=2`)).json<Page<TimelineEvent>>();
    assert.deepEqual(first.data, all.slice(0, 2));
    assert.ok(first.nextCursor !== null);
    const next = await s.get(
      `/v1/payments/${payment.id}/events?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`,
    );
    assert.deepEqual(next.json<Page<TimelineEvent>>().data, all.slice(2, 4));
  });

  test('an unknown payment is 404', async () => {
    const res = await s.get('/v1/payments/pay_00000000000000000000000000/events');
    assert.equal(res.statusCode, 404, res.body);
  });
});
