import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call, type TestApp } from '../../../../test/helper.ts';
import {
  createPayment,
  customerActor,
  type ErrorBody,
  get,
  type PaymentView,
  paidPayment,
  post,
  tenantApp,
} from './support.ts';

describe('payments: the customer is the API’s one Actor object', () => {
  let t: TestApp;
  let key: string;
  before(async () => ({ t, key } = await tenantApp()));
  after(() => t.close());

  test('the old bare-string customer: 400 naming /body/customer, nothing created', async () => {
    const id = `test:bare-${randomUUID()}`;
    const res = await post(t, key, '/v1/payments', { amount: 100, currency: 'EUR', customer: id });
    assert.equal(res.statusCode, 400, res.body);
    const body = res.json<ErrorBody>();
    assert.equal(body.error, 'invalid_request');
    assert.ok(
      body.details?.some((d) => d.field === '/body/customer'),
      `the field is named: ${res.body}`,
    );
    const listed = await get(t, key, `/v1/payments?customer=${encodeURIComponent(id)}`);
    assert.deepEqual(listed.json<{ data: PaymentView[] }>().data, []);
    // An Actor without its identity provider is not one either.
    const partial = await post(t, key, '/v1/payments', {
      amount: 100,
      currency: 'EUR',
      customer: { type: 'end_user', id },
    });
    assert.equal(partial.statusCode, 400, partial.body);
    assert.ok(partial.json<ErrorBody>().details?.some((d) => d.field.startsWith('/body/customer')));
  });

  test('named by an API key: created on first use, answered as the Actor everywhere, its account by its id', async () => {
    const actor = {
      type: 'agent',
      id: `acme-oidc:bot-${randomUUID()}`,
      identityProvider: 'acme-oidc',
    } as const;
    const payment = await paidPayment(t, key, { amount: 900, customer: actor });
    assert.deepEqual(payment.customer, actor);
    assert.deepEqual((await get(t, key, `/v1/payments/${payment.id}`)).json<PaymentView>().customer, actor);
    const listed = await get(t, key, `/v1/payments?customer=${encodeURIComponent(actor.id)}`);
    assert.deepEqual(
      listed.json<{ data: PaymentView[] }>().data.map((p) => [p.id, p.customer]),
      [[payment.id, actor]],
    );
    // The same actor again is the same actor: its payments are listed together.
    const second = await createPayment(t, key, { amount: 100, customer: actor });
    const both = await get(t, key, `/v1/payments?customer=${encodeURIComponent(actor.id)}`);
    assert.deepEqual(
      both.json<{ data: PaymentView[] }>().data.map((p) => p.id),
      [second.id, payment.id],
    );
    // Events (and so webhooks) carry the same object; no internal id anywhere.
    const events = await call(t.app, { method: 'GET', url: '/v1/events?limit=100', headers: bearer(key) });
    const ofPayment = events
      .json<{ data: { type: string; data: { paymentId?: string; payment?: PaymentView } }[] }>()
      .data.filter((e) => e.data.paymentId === payment.id);
    assert.ok(ofPayment.length >= 2, events.body);
    for (const event of ofPayment) assert.deepEqual(event.data.payment?.customer, actor, event.type);
    assert.doesNotMatch(events.body, /"customer":"/);
    // The ledger names the paying account by the Actor's id, as before.
    const accounts = await get(
      t,
      key,
      `/v1/ledger/accounts?prefix=${encodeURIComponent(`customer:${actor.id}`)}`,
    );
    assert.deepEqual(accounts.json<{ data: unknown[] }>().data, [
      { account: `customer:${actor.id}`, currency: 'EUR', balance: -900, postings: 1 },
    ]);
  });

  test('a session token sees only the payments its own actor pays', async () => {
    const own = `test:${randomUUID()}`;
    const session = await connectSession(t, key, { modules: ['payments'], actorId: own });
    const mine = await createPayment(t, key, { customer: customerActor(own) });
    const theirs = await createPayment(t, key, { customer: customerActor(`test:${randomUUID()}`) });
    const listed = await call(t.app, { method: 'GET', url: '/v1/payments', headers: bearer(session.token) });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json<{ data: PaymentView[] }>().data.map((p) => [p.id, p.customer?.id]),
      [[mine.id, own]],
    );
    const other = await call(t.app, {
      method: 'GET',
      url: `/v1/payments/${theirs.id}`,
      headers: bearer(session.token),
    });
    assert.equal(other.statusCode, 404, other.body);
  });
});
