import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { customerActor, type Page, paymentsSuite, type RefundView } from './support.ts';

interface Account {
  account: string;
  currency: string;
  balance: number;
  postings: number;
}

describe('payments: every list answers {data, nextCursor}, a page at a time', () => {
  const s = paymentsSuite();
  before(async () => {
    // Accounts in two currencies: customers c0..c3 pay sellers s0..s1, in EUR and USD.
    for (let i = 0; i < 4; i++) {
      for (const currency of ['EUR', 'USD']) {
        await s.paidPayment({
          amount: 1000 + i,
          currency,
          customer: customerActor(`test:c${i}`),
          seller: `s${i % 2}`,
        });
      }
    }
  });

  test('ledger accounts: by account name then currency, paged with limit and cursor, filters kept', async () => {
    const whole = await s.get('/v1/ledger/accounts');
    assert.equal(whole.statusCode, 200, whole.body);
    const all = whole.json<Page<Account>>();
    assert.equal(all.nextCursor, null, 'fewer than 50: one page');
    const pairs = all.data.map((a) => `${a.account} ${a.currency}`);
    assert.deepEqual(pairs, [...pairs].sort(), 'byte order of account, then currency');
    assert.ok(pairs.includes('customer:test:c0 EUR') && pairs.includes('customer:test:c0 USD'), pairs.join());
    // Three at a time: the same rows, in the same order, none twice.
    const walked: Account[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/ledger/accounts?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const page = (await s.get(url)).json<Page<Account>>();
      assert.ok(page.data.length <= 3);
      walked.push(...page.data);
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    assert.deepEqual(walked, all.data);
    assert.equal(pages, Math.ceil(all.data.length / 3));
    // Filters hold across pages.
    const customersInUsd = await s.allPages<Account>('/v1/ledger/accounts?prefix=customer:&currency=USD');
    assert.deepEqual(
      customersInUsd.map((a) => [a.account, a.currency, a.balance]),
      [0, 1, 2, 3].map((i) => [`customer:test:c${i}`, 'USD', -(1000 + i)]),
    );
    const firstTwo = (await s.get('/v1/ledger/accounts?prefix=customer:&limit=2')).json<Page<Account>>();
    assert.deepEqual(
      firstTwo.data.map((a) => `${a.account} ${a.currency}`),
      ['customer:test:c0 EUR', 'customer:test:c0 USD'],
    );
    assert.ok(firstTwo.nextCursor !== null);
    const tooMany = await s.get('/v1/ledger/accounts?limit=101');
    assert.equal(tooMany.statusCode, 400, tooMany.body);
  });

  test('a payment’s refunds: oldest first, paged', async () => {
    const payment = await s.paidPayment({ amount: 900 });
    const made: string[] = [];
    for (const amount of [100, 200, 300]) {
      const res = await s.refund(payment.id, { amount });
      assert.equal(res.statusCode, 201, res.body);
      made.push(res.json<RefundView>().id);
    }
    const first = (await s.get(`/v1/payments/${payment.id}/refunds?limit=2`)).json<Page<RefundView>>();
    assert.deepEqual(
      first.data.map((r) => r.id),
      made.slice(0, 2),
    );
    assert.ok(first.nextCursor !== null);
    const rest = await s.get(
      `/v1/payments/${payment.id}/refunds?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`,
    );
    assert.deepEqual(rest.json<Page<RefundView>>(), {
      data: [rest.json<Page<RefundView>>().data[0]],
      nextCursor: null,
    });
    assert.equal(rest.json<Page<RefundView>>().data[0]?.id, made[2]);
    const whole = (await s.get(`/v1/payments/${payment.id}/refunds`)).json<Page<RefundView>>();
    assert.deepEqual(
      whole.data.map((r) => r.amount),
      [100, 200, 300],
    );
    assert.equal(whole.nextCursor, null);
  });

  test('postings and transactions take the same limit and cursor', async () => {
    const postings = await s.get('/v1/ledger/accounts/seller:s0:payable/postings?limit=1');
    const page = postings.json<Page<{ account: string }>>();
    assert.equal(page.data.length, 1);
    assert.ok(page.nextCursor !== null);
    const transactions = (await s.get('/v1/ledger/transactions?limit=2')).json<Page<{ id: string }>>();
    assert.equal(transactions.data.length, 2);
    assert.ok(transactions.nextCursor !== null);
    for (const url of ['/v1/ledger/transactions?limit=0', '/v1/ledger/accounts/world/postings?limit=101']) {
      assert.equal((await s.get(url)).statusCode, 400, url);
    }
  });
});
