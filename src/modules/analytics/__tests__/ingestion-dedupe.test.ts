import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { buildTestApp } from '../../../../test/helper.ts';
import { acceptedAndDuplicates, actorNamed, ingest, ingestionSuite, keyOf } from './support.ts';

/** An event is recorded once whatever repeats it (messageId), and at the time the service received it. */
describe('analytics ingestion: duplicates and time', () => {
  const { s, clock, count } = ingestionSuite();

  test('messageId dedupes in the same batch and in a later one', async () => {
    const first = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-1' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-1' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-2' },
      ],
    });
    assert.deepEqual([first.accepted, first.duplicates], [2, 1]);
    clock.advance(6 * 86_400_000);
    const later = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-2' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-3' },
      ],
    });
    assert.deepEqual([later.accepted, later.duplicates], [1, 1]);
    assert.equal(await count('Deduped'), 3);
    // Another tenant's messageIds are its own.
    const other = await createTestTenant(s.t);
    const theirs = await ingest(s.t, keyOf(other.apiKey), {
      event: 'Deduped',
      actor: actorNamed('test:a'),
      messageId: 'm-1',
    });
    assert.equal(theirs.accepted, 1);
  });

  test('two requests with the same messageIds at once record each event once', async () => {
    const batch = Array.from({ length: 50 }, (_, i) => ({
      event: 'Raced',
      actor: actorNamed('test:a'),
      messageId: `race-${i}`,
    }));
    const answers = await Promise.all([1, 2, 3].map(() => ingest(s.t, keyOf(s.tenant.apiKey), { batch })));
    assert.deepEqual(acceptedAndDuplicates(answers), [50, 100]);
    assert.equal(await count('Raced'), 50);
  });

  test('two instances on one database, the same messageIds at once: each event recorded once', async () => {
    const second = await buildTestApp({ clock, db: s.t.db });
    try {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        event: 'Raced Instances',
        actor: actorNamed('test:a'),
        messageId: `instances-${i}`,
      }));
      const answers = await Promise.all(
        [s.t, second, s.t, second].map((app) => ingest(app, keyOf(s.tenant.apiKey), { batch })),
      );
      assert.deepEqual(acceptedAndDuplicates(answers), [100, 300]);
      assert.equal(await count('Raced Instances'), 100);
    } finally {
      await second.close();
    }
  });

  test('receivedAt is recorded; a timestamp far ahead is clamped to it; one past retention is refused', async () => {
    const now = clock.now();
    const answer = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        {
          event: 'Clocked',
          actor: actorNamed('test:a'),
          timestamp: new Date(now + 86_400_000 * 30).toISOString(),
        },
        { event: 'Clocked', actor: actorNamed('test:a'), timestamp: new Date(now - 3_600_000).toISOString() },
        {
          event: 'Clocked',
          actor: actorNamed('test:a'),
          timestamp: new Date(now - 401 * 86_400_000).toISOString(),
        },
      ],
    });
    assert.equal(answer.accepted, 2);
    assert.deepEqual(
      answer.rejections.map((r) => r.reason),
      ['timestamp_too_old'],
    );
    const { rows } = await s.t.db.query<{ ts: Date; received_at: Date; clamped: boolean }>(
      `select ts, received_at, clamped from analytics_events where tenant_id = $1 and event = 'Clocked' order by ts`,
      [s.tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => [new Date(r.ts).getTime(), new Date(r.received_at).getTime(), r.clamped]),
      [
        [now - 3_600_000, now, false],
        [now, now, true],
      ],
    );
  });
});
