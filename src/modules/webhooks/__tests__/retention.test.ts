import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../../../test/support/eventually.ts';
import { MODULES } from '../../../app.ts';
import type { Clock } from '../../../core/clock.ts';
import { systemTx } from '../../../core/db/tenant-tx.ts';
import { AppError } from '../../../core/http/errors.ts';
import { activeRetention, retentionRules } from '../../../core/retention/rules.ts';
import { RetentionWorker } from '../../../core/retention/worker.ts';
import { newId } from '../ids.ts';
import { createEndpoint, getDelivery, redeliver } from '../index.ts';
import { SECRET, suiteReceiver, webhookSuite } from './suite.ts';
import { ctxFor, futureClock, status, webhookConfig } from './support.ts';

const DAY_MS = 86_400_000;

function notFound(message?: RegExp | string) {
  return (error: unknown) =>
    error instanceof AppError &&
    error.code === 'not_found' &&
    (message === undefined ||
      (typeof message === 'string' ? error.message === message : message.test(error.message)));
}

describe('webhook delivery retention', () => {
  const s = webhookSuite();
  const receiver = suiteReceiver();
  const failing = suiteReceiver(status(500));

  test('finished deliveries go with their attempts 30 days after their last attempt; pending ones stay; a deleted one is a clear 404', async () => {
    // A failed first attempt waits an hour for its retry: that delivery stays pending.
    const config = webhookConfig({ webhookRetryScheduleMs: [3_600_000] });
    const { tenantId, ctx } = await s.tenant(config);
    await createEndpoint(ctx, { url: receiver().url, secret: SECRET, eventTypes: ['room.created'] });
    await createEndpoint(ctx, { url: failing().url, secret: SECRET, eventTypes: ['room.updated'] });
    const [old = '', recent = '', pending = ''] = [
      ...(await s.publish(tenantId, 'room.created', { roomId: 'room_1' })).deliveryIds,
      ...(await s.publish(tenantId, 'room.created', { roomId: 'room_2' })).deliveryIds,
      ...(await s.publish(tenantId, 'room.updated', { roomId: 'room_1' })).deliveryIds,
    ];
    const worker = s.worker({ config, tenantIds: [tenantId] });
    try {
      await s.waitFor(old, 'delivered');
      await s.waitFor(recent, 'delivered');
      await eventually('the failed first attempt', async () => (await s.row(pending)).attempt_count === 1);
    } finally {
      await worker.stop();
    }
    await systemTx(s.db, (tx) =>
      tx.query(
        `update webhook_deliveries set last_attempt_at = last_attempt_at - interval '31 days' where id = any($1)`,
        [[old, pending]],
      ),
    );

    const retention = new RetentionWorker({
      db: s.db,
      clock: futureClock,
      rules: activeRetention(retentionRules(MODULES), config.retention),
      intervalMs: 3_600_000,
      tenantIds: [tenantId],
    });
    assert.equal((await retention.pass()).ran, true);

    await assert.rejects(getDelivery(ctx, { id: old }), notFound());
    assert.deepEqual(await s.attempts(old), [], 'its attempts went with it');
    assert.equal(
      (await getDelivery(ctx, { id: pending })).attempts.length,
      1,
      'pending: kept, with its attempt',
    );
    // Within the retention a finished delivery can still be sent again.
    assert.equal((await redeliver(ctx, { id: recent })).state, 'pending');

    // A month on, the deleted delivery's id says it is old enough to have been deleted: the 404 says so.
    const later: Clock = { ...futureClock, now: () => futureClock.now() + 31 * DAY_MS };
    await assert.rejects(
      redeliver(ctxFor(s.db, tenantId, config, later), { id: old }),
      notFound(
        `webhook delivery ${old} not found; finished deliveries are deleted 30 days after their last attempt`,
      ),
    );
    const unknown = newId('webhookDelivery', futureClock.now());
    await assert.rejects(redeliver(ctx, { id: unknown }), notFound(`webhook delivery ${unknown} not found`));
  });
});
