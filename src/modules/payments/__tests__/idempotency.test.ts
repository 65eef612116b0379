import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, type TestApp } from '../../../../test/helper.ts';
import { customerActor, type ErrorBody, get, type PaymentView, post } from './support.ts';

describe('Idempotency-Key on payments POSTs (the platform feature)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
    other = await createTestTenant(t);
  });
  after(() => t.close());

  const countFor = async (apiKey: string, customer: string) =>
    (await get(t, apiKey, `/v1/payments?customer=${encodeURIComponent(customer)}`)).json<{
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
    const first = await post(t, tenant.apiKey, '/v1/payments', body, { 'idempotency-key': 'order-1' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    // The same parameters in another key order are the same request.
    const reordered = {
      metadata: { b: '2', a: '1' },
      customer: customerActor(customer),
      currency: 'EUR',
      amount: 700,
    };
    const again = await post(t, tenant.apiKey, '/v1/payments', reordered, { 'idempotency-key': 'order-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await countFor(tenant.apiKey, customer), 1);
  });

  test('same key, another body: 409 idempotency_conflict, nothing created', async () => {
    const customer = 'test:idem-other';
    const first = await post(
      t,
      tenant.apiKey,
      '/v1/payments',
      { amount: 100, currency: 'EUR', customer: customerActor(customer) },
      {
        'idempotency-key': 'order-2',
      },
    );
    assert.equal(first.statusCode, 201);
    const changed = await post(
      t,
      tenant.apiKey,
      '/v1/payments',
      { amount: 101, currency: 'EUR', customer: customerActor(customer) },
      {
        'idempotency-key': 'order-2',
      },
    );
    assert.equal(changed.statusCode, 409);
    assert.equal(changed.json<ErrorBody>().error, 'idempotency_conflict');
    assert.match(changed.json<ErrorBody>().message, /another request/);
    // Another route with the key is another request too.
    const id = first.json<PaymentView>().id;
    const elsewhere = await post(
      t,
      tenant.apiKey,
      `/v1/payments/${id}/cancel`,
      {},
      { 'idempotency-key': 'order-2' },
    );
    assert.equal(elsewhere.statusCode, 409);
    assert.equal(elsewhere.json<ErrorBody>().error, 'idempotency_conflict');
    assert.equal(
      (await get(t, tenant.apiKey, `/v1/payments/${id}`)).json<PaymentView>().status,
      'requires_payment_method',
    );
    assert.equal(await countFor(tenant.apiKey, customer), 1);
  });

  test('two concurrent requests with one key: one payment; the other is replayed or told it is running', async () => {
    const customer = 'test:idem-race';
    const body = { amount: 900, currency: 'EUR', customer: customerActor(customer) };
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        post(t, tenant.apiKey, '/v1/payments', body, { 'idempotency-key': 'race-1' }),
      ),
    );
    const created = results.filter((r) => r.statusCode === 201);
    const running = results.filter((r) => r.statusCode === 409);
    assert.equal(created.length + running.length, results.length, results.map((r) => r.body).join('\n'));
    assert.ok(created.length >= 1);
    for (const r of created) assert.equal(r.body, created[0]?.body, 'every 201 is the one payment');
    for (const r of running) assert.equal(r.json<ErrorBody>().error, 'conflict');
    assert.equal(await countFor(tenant.apiKey, customer), 1);
  });

  test('a retried confirm does not confirm twice; an error response is replayed too', async () => {
    const created = await post(t, tenant.apiKey, '/v1/payments', { amount: 100, currency: 'EUR' });
    const id = created.json<PaymentView>().id;
    const url = `/v1/payments/${id}/confirm`;
    const declined = await post(
      t,
      tenant.apiKey,
      url,
      { paymentMethod: 'pm_card_chargeDeclined' },
      { 'idempotency-key': 'c-1' },
    );
    assert.equal(declined.json<PaymentView>().status, 'requires_payment_method');
    const paid = await post(
      t,
      tenant.apiKey,
      url,
      { paymentMethod: 'pm_card_visa' },
      { 'idempotency-key': 'c-2' },
    );
    assert.equal(paid.json<PaymentView>().status, 'succeeded');
    const replay = await post(
      t,
      tenant.apiKey,
      url,
      { paymentMethod: 'pm_card_visa' },
      { 'idempotency-key': 'c-2' },
    );
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.body, paid.body);
    const refused = await post(
      t,
      tenant.apiKey,
      url,
      { paymentMethod: 'pm_card_visa' },
      { 'idempotency-key': 'c-3' },
    );
    assert.equal(refused.statusCode, 409);
    const refusedAgain = await post(
      t,
      tenant.apiKey,
      url,
      { paymentMethod: 'pm_card_visa' },
      { 'idempotency-key': 'c-3' },
    );
    assert.equal(refusedAgain.statusCode, 409);
    assert.equal(refusedAgain.body, refused.body, 'the stored 409, not a new one');
  });

  test('keys are per tenant; a key longer than 255 characters is refused', async () => {
    const body = { amount: 100, currency: 'EUR', customer: customerActor('test:idem-tenant') };
    const a = await post(t, tenant.apiKey, '/v1/payments', body, { 'idempotency-key': 'shared-key' });
    const b = await post(t, other.apiKey, '/v1/payments', body, { 'idempotency-key': 'shared-key' });
    assert.equal(a.statusCode, 201);
    assert.equal(b.statusCode, 201);
    assert.notEqual(a.json<PaymentView>().id, b.json<PaymentView>().id);
    assert.equal(b.headers['idempotent-replayed'], undefined);
    const long = await post(t, tenant.apiKey, '/v1/payments', body, { 'idempotency-key': 'k'.repeat(256) });
    assert.equal(long.statusCode, 400);
    assert.equal(long.json<ErrorBody>().error, 'invalid_request');
    const max = await post(t, tenant.apiKey, '/v1/payments', body, { 'idempotency-key': 'k'.repeat(255) });
    assert.equal(max.statusCode, 201);
  });
});
