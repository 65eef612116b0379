import { after, before, describe, test } from 'node:test';
import { tenantTx } from '../../src/core/db/tenant-tx.ts';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Revocations travel through `credential_revocations`, read by sequence number. On PostgreSQL sequence
 * numbers are handed out at insert but become visible at commit, so a revocation can land *behind* one
 * an instance has already read. It must still be applied.
 */
describe('revocations committed out of sequence order', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const revokeRow = (tx: { query(sql: string, params: unknown[]): Promise<unknown> }, sessionId: string) =>
    tx.query(
      `insert into credential_revocations (tenant_id, kind, subject, expires_at)
       values ($1, 'session', $2, now() + interval '1 hour')`,
      [tenant.tenantId, sessionId],
    );

  test('an earlier sequence number committed later still revokes', {
    skip: process.env.DATABASE_URL === undefined,
  }, async (ctx) => {
    const slow = await connectSession(t, tenant.apiKey);
    const fast = await connectSession(t, tenant.apiKey);
    const me = (token: string) => call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(token) });

    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted: () => void = () => {};
    const slowInserted = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    // Another instance's revocation that takes its sequence number first and commits last.
    const slowTx = tenantTx(t.db, { tenantId: tenant.tenantId }, async (tx) => {
      await revokeRow(tx, slow.sessionId);
      inserted();
      await gate;
    });
    await slowInserted;
    await tenantTx(t.db, { tenantId: tenant.tenantId }, (tx) => revokeRow(tx, fast.sessionId));
    await eventually(
      'the later revocation to be applied',
      async () => (await me(fast.token)).statusCode === 401,
      {
        timeoutMs: 3000,
      },
    );
    release();
    await slowTx;
    const committedAt = Date.now();
    await eventually(
      'the revocation committed out of order to be applied',
      async () => (await me(slow.token)).statusCode === 401,
      { timeoutMs: 3000 },
    );
    ctx.diagnostic(`out-of-order revocation applied ${Date.now() - committedAt} ms after its commit`);
  });
});
