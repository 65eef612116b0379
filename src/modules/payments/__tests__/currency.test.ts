import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CURRENCY_CODES, isCurrency, minorUnit } from '../../../core/currencies.ts';
import { type ErrorBody, type PaymentView, paymentsSuite } from './support.ts';

describe('payments take active ISO 4217 currencies only', () => {
  const s = paymentsSuite();

  const assertUnknownCurrency = (res: { statusCode: number; body: string }, code: string) => {
    assert.equal(res.statusCode, 400, res.body);
    const body = JSON.parse(res.body) as ErrorBody;
    assert.equal(body.error, 'invalid_request');
    assert.match(body.message, new RegExp(`currency ${code} is not an active ISO 4217 currency code`));
    assert.equal(body.details?.[0]?.field, '/body/currency');
    assert.equal(body.details?.[0]?.code, 'unknown_currency');
  };

  test('a code that is no currency, or no longer one, is refused with 400 naming the field', async () => {
    for (const code of ['ZZZ', 'XXX', 'XTS', 'XAU', 'HRK', 'BGN']) {
      const res = await s.post('/v1/payments', { amount: 100, currency: code });
      assertUnknownCurrency(res, code);
    }
    const listed = await s.get('/v1/payments?limit=100');
    assert.deepEqual(listed.json<{ data: PaymentView[] }>().data, [], 'nothing was created');
  });

  test('the create_payment action (and so the MCP tool) refuses it the same way', async () => {
    const res = await s.post('/v1/actions/create_payment', { arguments: { amount: 100, currency: 'ZZZ' } });
    assertUnknownCurrency(res, 'ZZZ');
  });

  test('currencies of every minor unit are accepted, amounts in that unit', async () => {
    for (const code of ['EUR', 'USD', 'JPY', 'KWD', 'XOF', 'CHF']) {
      const res = await s.post('/v1/payments', { amount: 2500, currency: code });
      assert.equal(res.statusCode, 201, `${code}: ${res.body}`);
      assert.equal(res.json<PaymentView>().currency, code);
      assert.equal(res.json<PaymentView>().amount, 2500);
    }
  });

  test('the one list: upper-case codes with their ISO minor units', () => {
    assert.ok(CURRENCY_CODES.length > 150);
    assert.ok(CURRENCY_CODES.every((code) => /^[A-Z]{3}$/.test(code)));
    assert.deepEqual(['EUR', 'JPY', 'KWD', 'CLP', 'BHD', 'USD'].map(minorUnit), [2, 0, 3, 0, 3, 2]);
    assert.equal(isCurrency('eur'), false);
    assert.equal(isCurrency('toString'), false, 'own entries only');
    assert.equal(minorUnit('ZZZ'), undefined);
  });
});
