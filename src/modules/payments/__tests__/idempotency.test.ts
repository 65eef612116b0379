import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { customerActor, type ErrorBody, type PaymentView, paymentsSuite } from './support.ts';

describe('Idempotency-Key on payments POSTs (the platform feature)', () => {
  const s = paymentsSuite({ tenants: 2 });

  const countFor = async (apiKey: string, customer: string) =>
    (await s.as(apiKey).get(`/v1/payments?customer=${encodeURIComponent(customer)}`)).json<{
      data: PaymentView[];
    }>().data.length;

  test('same key, same body: the first response again, byte for byte, and one payment', async () => {
    const customer = 'test:idem-same';
    const body = {
      amount: 700,
      currency: 'EUR',
      customer: customerActor(customer),
      metadata: { a: '1', b: '2' },
    };
    const first = await s.postKeyed('order-1', '/v1/payments', body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    // The same parameters in another key order are the same request.
    const reordered = {
      metadata: { b: '2', a: '1' },
      customer: customerActor(customer),
      currency: 'EUR',
      amount: 700,
    };
    const again = await s.postKeyed('order-1', '/v1/payments', reordered);
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await countFor(s.tenant.apiKey, customer), 1);
  });

  test('same key, another body: 409 idempotency_conflict, nothing created', async () => {
    const customer = 'test:idem-other';
    const first = await s.postKeyed('order-2', '/v1/payments', {
      amount: 100,
      currency: 'EUR',
      customer: customerActor(customer),
    });
    assert.equal(first.statusCode, 201);
    const changed = await s.postKeyed('order-2', '/v1/payments', {
      amount: 101,
      currency: 'EUR',
      customer: customerActor(customer),
    });
    assert.equal(changed.statusCode, 409);
    assert.equal(changed.json<ErrorBody>().error, 'idempotency_conflict');
    assert.match(changed.json<ErrorBody>().message, /another request/);
    // Another route with the key is another request too.
    const id = first.json<PaymentView>().id;
    const elsewhere = await s.postKeyed('order-2', `/v1/payments/${id}/cancel`, {});
    assert.equal(elsewhere.statusCode, 409);
    assert.equal(elsewhere.json<ErrorBody>().error, 'idempotency_conflict');
    assert.equal((await s.get(`/v1/payments/${id}`)).json<PaymentView>().status, 'requires_payment_method');
    assert.equal(await countFor(s.tenant.apiKey, customer), 1);
  });

  test('two concurrent requests with one key: one payment; the other is replayed or told it is running', async () => {
    const customer = 'test:idem-race';
    const body = { amount: 900, currency: 'EUR', customer: customerActor(customer) };
    const results = await Promise.all(
      Array.from({ length: 6 }, () => s.postKeyed('race-1', '/v1/payments', body)),
    );
    const created = results.filter((r) => r.statusCode === 201);
    const running = results.filter((r) => r.statusCode === 409);
    assert.equal(created.length + running.length, results.length, results.map((r) => r.body).join('\n'));
    assert.ok(created.length >= 1);
    for (const r of created) assert.equal(r.body, created[0]?.body, 'every 201 is the one payment');
    for (const r of running) assert.equal(r.json<ErrorBody>().error, 'conflict');
    assert.equal(await countFor(s.tenant.apiKey, customer), 1);
  });

  test('a retried confirm does not confirm twice; an error response is replayed too', async () => {
    const created = await s.post('/v1/payments', { amount: 100, currency: 'EUR' });
    const id = created.json<PaymentView>().id;
    const url = `/v1/payments/${id}/confirm`;
    const declined = await s.postKeyed('c-1', url, { paymentMethod: 'pm_card_chargeDeclined' });
    assert.equal(declined.json<PaymentView>().status, 'requires_payment_method');
    const paid = await s.postKeyed('c-2', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(paid.json<PaymentView>().status, 'succeeded');
    const replay = await s.postKeyed('c-2', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.body, paid.body);
    const refused = await s.postKeyed('c-3', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(refused.statusCode, 409);
    const refusedAgain = await s.postKeyed('c-3', url, { paymentMethod: 'pm_card_visa' });
    assert.equal(refusedAgain.statusCode, 409);
    assert.equal(refusedAgain.body, refused.body, 'the stored 409, not a new one');
  });

  test('keys are per tenant; a key longer than 255 characters is refused', async () => {
    const body = { amount: 100, currency: 'EUR', customer: customerActor('test:idem-tenant') };
    const a = await s.postKeyed('shared-key', '/v1/payments', body);
    const b = await s.ofTenant(1).postKeyed('shared-key', '/v1/payments', body);
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.notEqual(a.json<PaymentView>().id, b.json<PaymentView>().id);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    const long = await s.postKeyed('k'.repeat(256), '/v1/payments', body);
    assert.equal(long.statusCode, 400);
    assert.equal(long.json<ErrorBody>().error, 'invalid_request');
    const max = await s.postKeyed('k'.repeat(255), '/v1/payments', body);
    assert.equal(max.statusCode, 201);
  });
});
