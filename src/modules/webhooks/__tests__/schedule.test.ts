import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { webhookSuite } from './suite.ts';
import { manualClock, ms, startReceiver, status } from './support.ts';

describe('webhook retry schedule (injected clock)', () => {
  const s = webhookSuite();

  test('attempt 1 at once, retries after 1 s, 5 s, 30 s, 5 min, 30 min, then dead_lettered', async () => {
    const schedule = [1000, 5000, 30_000, 300_000, 1_800_000];
    const config = testConfig();
    assert.deepEqual(config.webhookRetryScheduleMs, schedule, 'the default schedule is the spec one');
    const clock = manualClock();
    const receiver = await startReceiver(status(500));
    const start = clock.now();
    const { tenantId, id } = await s.delivery(receiver.url, config, clock);
    const worker = s.worker({ clock, config, random: () => 0, tenantIds: [tenantId] });
    const attemptsSoFar = async (n: number) => {
      await worker.idle();
      return eventually(`${n} attempts`, async () => {
        const row = await s.row(id);
        return row.attempt_count === n ? row : undefined;
      });
    };
    try {
      let row = await attemptsSoFar(1);
      let dueAt = start;
      for (const delay of schedule) {
        dueAt += delay;
        assert.equal(row.state, 'pending');
        assert.equal(ms(row.next_attempt_at), dueAt, `retry due ${delay} ms later`);
        clock.advance(dueAt - 1 - clock.now());
        await worker.idle();
        assert.equal((await s.row(id)).attempt_count, row.attempt_count, 'not before it is due');
        clock.advance(1);
        row = await attemptsSoFar(row.attempt_count + 1);
      }
      assert.equal(row.state, 'dead_lettered');
      assert.equal(row.next_attempt_at, null);
      assert.equal(ms(row.dead_lettered_at), dueAt);
    } finally {
      await worker.stop({ graceMs: 0 });
      await receiver.close();
    }
    const attempts = await s.attempts(id);
    assert.deepEqual(
      attempts.map((a) => new Date(a.started_at).getTime() - start),
      [0, 1000, 6000, 36_000, 336_000, 2_136_000],
    );
    assert.ok(attempts.every((a) => a.status_code === 500 && a.error_class === 'http'));
    assert.equal(receiver.received.length, 6);
  });

  test('jitter only ever adds, up to a tenth of the delay', async () => {
    const clock = manualClock();
    const config = testConfig({ webhookRetryScheduleMs: [1000] });
    const receiver = await startReceiver(status(500));
    const start = clock.now();
    const { tenantId, id: deliveryId } = await s.delivery(receiver.url, config, clock);
    const worker = s.worker({ clock, config, random: () => 0.999, tenantIds: [tenantId] });
    try {
      await worker.idle();
      const row = await s.row(deliveryId);
      assert.equal(row.attempt_count, 1);
      assert.equal(ms(row.next_attempt_at) - start, 1099);
    } finally {
      await worker.stop({ graceMs: 0 });
      await receiver.close();
    }
  });
});
