import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { connectSession } from '../../../../test/factories.ts';
import { customerActor, type ErrorBody, type PaymentView, paymentsSuite } from './support.ts';

describe('payments: the customer is the API’s one Actor object', () => {
  const s = paymentsSuite();

  test('the old bare-string customer: 400 naming /body/customer, nothing created', async () => {
    const id = `test:bare-${randomUUID()}`;
    const res = await s.post('/v1/payments', { amount: 100, currency: 'EUR', customer: id });
    assert.equal(res.statusCode, 400, res.body);
    const body = res.json<ErrorBody>();
    assert.equal(body.error, 'invalid_request');
    assert.ok(
      body.details?.some((d) => d.field === '/body/customer'),
      `the field is named: ${res.body}`,
    );
    const listed = await s.get(`/v1/payments?customer=${encodeURIComponent(id)}`);
    assert.deepEqual(listed.json<{ data: PaymentView[] }>().data, []);
    // An Actor without its identity provider is not one either.
    const partial = await s.post('/v1/payments', {
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
    const payment = await s.paidPayment({ amount: 900, customer: actor });
    assert.deepEqual(payment.customer, actor);
    assert.deepEqual((await s.get(`/v1/payments/${payment.id}`)).json<PaymentView>().customer, actor);
    const listed = await s.get(`/v1/payments?customer=${encodeURIComponent(actor.id)}`);
    assert.deepEqual(
      listed.json<{ data: PaymentView[] }>().data.map((p) => [p.id, p.customer]),
      [[payment.id, actor]],
    );
    // The same actor again is the same actor: its payments are listed together.
    const second = await s.createPayment({ amount: 100, customer: actor });
    const both = await s.get(`/v1/payments?customer=${encodeURIComponent(actor.id)}`);
    assert.deepEqual(
      both.json<{ data: PaymentView[] }>().data.map((p) => p.id),
      [second.id, payment.id],
    );
    // Events (and so webhooks) carry the same object; no internal id anywhere.
    const events = await s.get('/v1/events?limit=100');
    const ofPayment = events
      .json<{ data: { type: string; data: { paymentId?: string; payment?: PaymentView } }[] }>()
      .data.filter((e) => e.data.paymentId === payment.id);
    assert.ok(ofPayment.length >= 2, events.body);
    for (const event of ofPayment) assert.deepEqual(event.data.payment?.customer, actor, event.type);
    assert.doesNotMatch(events.body, /"customer":"/);
    // The ledger names the paying account by the Actor's id, as before.
    const accounts = await s.get(`/v1/ledger/accounts?prefix=${encodeURIComponent(`customer:${actor.id}`)}`);
    assert.deepEqual(accounts.json<{ data: unknown[] }>().data, [
      { account: `customer:${actor.id}`, currency: 'EUR', balance: -900, postings: 1 },
    ]);
  });

  test('a session token sees only the payments its own actor pays', async () => {
    const own = `test:${randomUUID()}`;
    const session = await connectSession(s.t, s.key, { modules: ['payments'], actorId: own });
    const mine = await s.createPayment({ customer: customerActor(own) });
    const theirs = await s.createPayment({ customer: customerActor(`test:${randomUUID()}`) });
    const asSession = s.as(session.token);
    const listed = await asSession.get('/v1/payments');
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json<{ data: PaymentView[] }>().data.map((p) => [p.id, p.customer?.id]),
      [[mine.id, own]],
    );
    const other = await asSession.get(`/v1/payments/${theirs.id}`);
    assert.equal(other.statusCode, 404, other.body);
  });
});
