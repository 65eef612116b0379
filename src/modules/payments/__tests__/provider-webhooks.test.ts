import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testProvider } from '../providers/index.ts';
import type { PaymentProvider, ProviderPayment } from '../providers/provider.ts';
import { StripeProvider } from '../providers/stripe-provider.ts';

describe('payments: providers translate their webhooks into a status change (one interface)', () => {
  const payment = (captureMethod: 'automatic' | 'manual'): ProviderPayment => ({
    id: 'pay_01aaaaaaaaaaaaaaaaaaaaaaaa',
    amount: 5000,
    currency: 'EUR',
    captureMethod,
    customer: null,
    description: null,
    providerRef: 'ref_1',
    paymentMethod: 'pm_card_processing',
    status: 'processing',
  });

  test('the test provider: a simulated outcome, authorized as the capture method says', () => {
    const provider: PaymentProvider = testProvider();
    assert.deepEqual(
      provider.translateEvent({ id: 'e1', payment: payment('manual'), outcome: 'succeeded' }),
      {
        eventId: 'e1',
        type: 'payment.succeeded',
        providerRef: 'ref_1',
        outcome: { status: 'requires_capture' },
      },
    );
    assert.deepEqual(
      provider.translateEvent({ id: 'e2', payment: payment('automatic'), outcome: 'succeeded' }).outcome,
      { status: 'succeeded' },
    );
    assert.equal(
      provider.translateEvent({ id: 'e3', payment: payment('automatic'), outcome: 'failed' }).outcome?.status,
      'failed',
    );
  });

  test('stripe: payment_intent.* names the PaymentIntent and its status as ours; other events name nothing', async () => {
    const provider: PaymentProvider = await StripeProvider.open({
      secretKey: 'sk_test_x',
      apiUrl: undefined,
    });
    const event = (type: string, object: Record<string, unknown>) => ({
      id: `evt_${type}`,
      type,
      data: { object },
    });
    assert.deepEqual(
      provider.translateEvent(
        event('payment_intent.succeeded', { id: 'pi_1', status: 'succeeded', amount_received: 4200 }),
      ),
      {
        eventId: 'evt_payment_intent.succeeded',
        type: 'payment_intent.succeeded',
        providerRef: 'pi_1',
        outcome: { status: 'succeeded' },
        amountCaptured: 4200,
      },
    );
    assert.deepEqual(
      provider.translateEvent(
        event('payment_intent.payment_failed', {
          id: 'pi_2',
          status: 'requires_payment_method',
          last_payment_error: { code: 'card_declined', decline_code: 'lost_card', message: 'Lost.' },
        }),
      ).outcome,
      { status: 'failed', code: 'card_declined', declineCode: 'lost_card', message: 'Lost.' },
    );
    assert.deepEqual(
      provider.translateEvent(event('payment_intent.canceled', { id: 'pi_3', status: 'canceled' })),
      {
        eventId: 'evt_payment_intent.canceled',
        type: 'payment_intent.canceled',
        providerRef: 'pi_3',
        outcome: { status: 'canceled' },
      },
    );
    const other = provider.translateEvent(event('customer.created', { id: 'cus_1' }));
    assert.deepEqual([other.providerRef, other.outcome], [null, undefined]);
  });
});
