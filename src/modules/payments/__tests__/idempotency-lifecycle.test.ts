import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../../core/clock.ts';
import { IDEMPOTENCY_LIMITS, requestFingerprint } from '../../../core/http/idempotency.ts';
import { stripePaths } from './steps-fixture.ts';
import { stripeSuite } from './stripe-suite.ts';
import { customerActor, type ErrorBody, type PaymentView } from './support.ts';

/**
 * The Idempotency-Key's life, through payment routes on the app's manual clock: a 5xx does not pin its
 * key, a key whose request stopped answering is free again after the lease, and a stored response is
 * forgotten after its 24 h window (the payment a key made is not: it stays bound to the key).
 */
describe('Idempotency-Key on payments: released after a 5xx, the lease, the 24 h window', () => {
  const clock = new ManualClock(Date.now());
  /** The first tenant pays through the local Stripe (its faults make the 5xx and the hanging request). */
  const s = stripeSuite({
    clock,
    tenants: 2,
    keys: {
      secretKey: 'sk_test_51IdemLifecycleStandIn',
      webhookSecret: 'whsec_idemLifecycleSecret0123456789',
    },
  });
  /** The second pays with the built-in test provider. */
  const plain = s.ofTenant(1);

  const storedKey = async (tenantId: string, key: string) =>
    (
      await s.t.db.query<{ state: string }>(
        'select state from idempotency_keys where tenant_id = $1 and key = $2',
        [tenantId, key],
      )
    ).rows[0];
  const authorized = () => s.authorized({ amount: 3000 });
  const captures = (payment: PaymentView) => stripePaths.of(payment, 'capture');

  test('a 5xx does not pin its key: the retry with the key runs again (and is then replayed)', async () => {
    const payment = await authorized();
    s.fake.loseAnswers(captures(payment), 2);
    const url = `/v1/payments/${payment.id}/capture`;
    const failed = await s.postKeyed('capture-5xx', url, {});
    assert.equal(failed.statusCode, 503, failed.body);
    assert.equal(await storedKey(s.tenant.tenantId, 'capture-5xx'), undefined, 'the key was released');

    const retried = await s.postKeyed('capture-5xx', url, {});
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], undefined, 'it ran, not replayed');
    assert.equal(retried.json<PaymentView>().status, 'succeeded');
    const again = await s.postKeyed('capture-5xx', url, {});
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, retried.body);
    assert.equal(s.fake.performed.filter(captures(payment)).length, 1, 'captured once at Stripe');
    assert.equal(await s.captureTransactions(payment.id), 1);
  });

  test('a key whose request stopped answering is refused until its lease runs out, then usable', async () => {
    const payment = await authorized();
    const url = `/v1/payments/${payment.id}/capture`;
    const held = s.fake.hold(captures(payment));
    const stuck = s.postKeyed('capture-lease', url, {});
    await held.reached;
    const during = await s.postKeyed('capture-lease', url, {});
    assert.equal(during.statusCode, 409, during.body);
    assert.equal(during.json<ErrorBody>().error, 'conflict');
    assert.match(during.json<ErrorBody>().message, /Idempotency-Key is still running/);
    clock.advance(IDEMPOTENCY_LIMITS.leaseMs - 1);
    const almost = await s.postKeyed('capture-lease', url, {});
    assert.equal(almost.statusCode, 409, 'still within the lease');

    clock.advance(2);
    const after = await s.postKeyed('capture-lease', url, {});
    assert.equal(after.statusCode, 200, after.body);
    assert.equal(after.headers['idempotent-replayed'], undefined);
    assert.equal(after.json<PaymentView>().status, 'succeeded');
    held.release();
    const late = await stuck;
    assert.equal(late.statusCode, 200, late.body);
    assert.equal(late.json<PaymentView>().status, 'succeeded', 'its answer, applied once already');
    const replay = await s.postKeyed('capture-lease', url, {});
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, after.body, 'the response stored is the one that took the key over');
    assert.equal(s.fake.performed.filter(captures(payment)).length, 1, 'captured once at Stripe');
    assert.equal(await s.captureTransactions(payment.id), 1, 'posted once');
  });

  test('a key whose request died (its instance gone) is free after the lease', async () => {
    const now = clock.now();
    const body = { amount: 800, currency: 'EUR', customer: customerActor('test:died') };
    // What the dead request left: its claim of the key, running, with its lease.
    await s.t.db.query(
      `insert into idempotency_keys (tenant_id, key, fingerprint, state, created_at, locked_until)
       values ($1, 'died-1', $2, 'running', $3, $4)`,
      [
        s.tenantAt(1).tenantId,
        requestFingerprint('POST', '/v1/payments', body),
        new Date(now).toISOString(),
        new Date(now + IDEMPOTENCY_LIMITS.leaseMs).toISOString(),
      ],
    );
    const refused = await plain.postKeyed('died-1', '/v1/payments', body);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json<ErrorBody>().message, /still running/);
    clock.advance(IDEMPOTENCY_LIMITS.leaseMs + 1);
    const created = await plain.postKeyed('died-1', '/v1/payments', body);
    assert.equal(created.statusCode, 201, created.body);
    const replay = await plain.postKeyed('died-1', '/v1/payments', body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, created.body);
  });

  test('after 24 h the stored response is forgotten, not the payment the key made', async () => {
    const first = { amount: 1100, currency: 'EUR', customer: customerActor('test:window') };
    const other = { amount: 1200, currency: 'EUR', customer: customerActor('test:window') };
    const created = await plain.postKeyed('window-1', '/v1/payments', first);
    assert.equal(created.statusCode, 201, created.body);

    clock.advance(IDEMPOTENCY_LIMITS.windowMs - 1000);
    const within = await plain.postKeyed('window-1', '/v1/payments', first);
    assert.equal(within.headers['idempotent-replayed'], 'true', 'replayed within the window');
    assert.equal(within.body, created.body);
    const otherWithin = await plain.postKeyed('window-1', '/v1/payments', other);
    assert.equal(otherWithin.statusCode, 409);
    assert.equal(otherWithin.json<ErrorBody>().error, 'idempotency_conflict');

    clock.advance(2000);
    const sameAfter = await plain.postKeyed('window-1', '/v1/payments', first);
    assert.equal(sameAfter.statusCode, 201, sameAfter.body);
    assert.equal(sameAfter.headers['idempotent-replayed'], 'true', 'found by its key, not made again');
    assert.equal(sameAfter.json<PaymentView>().id, created.json<PaymentView>().id);
    const otherAfter = await plain.postKeyed('window-1', '/v1/payments', other);
    assert.equal(otherAfter.statusCode, 409, otherAfter.body);
    assert.equal(otherAfter.json<ErrorBody>().error, 'idempotency_conflict');
    const listed = await plain.get('/v1/payments?customer=test:window');
    assert.equal(listed.json<{ data: PaymentView[] }>().data.length, 1, 'one payment for the key, ever');
  });

  test('after 24 h a key that made nothing (a confirm) is forgotten: it runs again, even with another body', async () => {
    const payment = await plain.createPayment({
      amount: 1300,
      customer: customerActor('test:window-confirm'),
    });
    const url = `/v1/payments/${payment.id}/confirm`;
    const declined = await plain.postKeyed('window-2', url, { paymentMethod: 'pm_card_chargeDeclined' });
    assert.equal(declined.json<PaymentView>().status, 'requires_payment_method', declined.body);
    const otherWithin = await plain.postKeyed('window-2', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(otherWithin.json<ErrorBody>().error, 'idempotency_conflict');

    clock.advance(IDEMPOTENCY_LIMITS.windowMs + 1000);
    const afterWindow = await plain.postKeyed('window-2', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(afterWindow.statusCode, 200, afterWindow.body);
    assert.equal(afterWindow.headers['idempotent-replayed'], undefined);
    assert.equal(afterWindow.json<PaymentView>().status, 'succeeded');
    const replay = await plain.postKeyed('window-2', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, afterWindow.body, 'the new response is the one kept now');
  });
});
