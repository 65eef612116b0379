import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, type TestApp, testConfig } from '../../../../test/helper.ts';
import type { Database } from '../../../core/db/database.ts';
import { openDatabase } from '../../../runtime.ts';
import type { PaymentView, RefundView } from './support.ts';
import { configurePayments, customerActor, paymentsClient } from './support.ts';

/**
 * Two app instances on one database (each its own PostgreSQL pool with DATABASE_URL; one PGlite
 * otherwise) capture and refund the same payments at once: nothing is captured twice, refunds never add
 * up past the captured amount, and every ledger transaction balances.
 */
describe('payments on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let ownDb: Database | undefined;
  let tenant: TestTenant;

  before(async () => {
    a = await buildTestApp();
    const config = testConfig();
    if (config.databaseUrl !== undefined) ownDb = await openDatabase(config);
    b = await buildTestApp({ db: ownDb ?? a.db });
    tenant = await createTestTenant(a);
    await configurePayments(a, tenant, { feeBasisPoints: 333, feeFixed: 7 });
  });
  after(async () => {
    await b.close();
    await a.close();
    await ownDb?.close();
  });

  test('concurrent captures and refunds through both instances never over-refund nor unbalance', async () => {
    const onA = paymentsClient(a, tenant.apiKey);
    const onB = paymentsClient(b, tenant.apiKey);
    const held: PaymentView[] = [];
    for (let i = 0; i < 10; i++) {
      held.push(
        await onA.paidPayment({
          amount: 1000,
          captureMethod: 'manual',
          seller: `s${i % 3}`,
          customer: customerActor(`test:c${i}`),
        }),
      );
    }
    const captures = await Promise.all(
      held.flatMap((p) => [
        onA.act(p.id, 'capture', { amountToCapture: 900 }),
        onB.act(p.id, 'capture', { amountToCapture: 800 }),
      ]),
    );
    for (let i = 0; i < held.length; i++) {
      const pair = [captures[2 * i], captures[2 * i + 1]].map((r) => r?.statusCode).sort();
      assert.deepEqual(pair, [200, 409], `one capture of ${held[i]?.id} wins`);
    }
    const refunds = await Promise.all(
      held.flatMap((p) =>
        Array.from({ length: 8 }, (_, j) => (j % 2 === 0 ? onA : onB).refund(p.id, { amount: 250 })),
      ),
    );
    for (const res of refunds) assert.ok(res.statusCode === 201 || res.statusCode === 400, res.body);
    for (const p of held) {
      const payment = await onB.read(p.id);
      const listed = (await onA.get(`/v1/payments/${p.id}/refunds`)).json<{ data: RefundView[] }>().data;
      const refunded = listed.reduce((sum, r) => sum + r.amount, 0);
      assert.ok(payment.amountCaptured === 900 || payment.amountCaptured === 800);
      assert.equal(refunded, payment.amountRefunded);
      assert.equal(
        listed.length,
        Math.floor(payment.amountCaptured / 250),
        'as many refunds as fit, no more',
      );
      assert.ok(payment.amountRefunded <= payment.amountCaptured);
    }
    await onB.ledgerOk();
  });
});
