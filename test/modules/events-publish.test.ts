import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { eventually } from '../support/eventually.ts';

interface PublishedEvent {
  id: string;
  type: string;
  data: { n: number };
  trace: { requestId: string };
}

const QUEUE = 'events.publish';

describe('custom events published together', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const publish = (n: number) =>
    call(t.app, {
      method: 'POST',
      url: '/v1/events',
      headers: { 'x-api-key': tenant.apiKey, 'x-request-id': `burst-${n}` },
      payload: { type: 'app.burst', data: { n } },
    });

  test('events POSTed while the tenant writes go in one statement, each with its own answer and trace', async () => {
    // The key is verified and the tenant's settings read before the database is held.
    assert.equal((await publish(-1)).statusCode, 201);
    const commits = t.app.services.groupCommit;
    const before = commits.written(QUEUE);

    // Inserts into events wait while this transaction holds the table (PGlite: the one connection too).
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = t.db.transaction(async (tx) => {
      await tx.query('lock table events in share mode');
      locked();
      await held;
    });
    await lockTaken;

    const answers = Array.from({ length: 24 }, (_, n) => publish(n));
    try {
      // The first write waits on the lock; the other 23 wait for it in the tenant's queue.
      await eventually(
        '23 events waiting behind the first',
        () => commits.waiting(QUEUE, tenant.tenantId) === 23,
      );
    } finally {
      release();
      await holding;
    }
    const responses = await Promise.all(answers);

    const written = commits.written(QUEUE);
    assert.deepEqual(
      { groups: written.groups - before.groups, items: written.items - before.items },
      { groups: 2, items: 24 },
      'the first event alone, then the 23 that arrived meanwhile in one statement',
    );
    const events = responses.map((res, n) => {
      assert.equal(res.statusCode, 201, res.body);
      const event = res.json<PublishedEvent>();
      assert.equal(event.data.n, n, 'each request is answered with its own event');
      assert.equal(event.trace.requestId, `burst-${n}`, 'each event keeps its own request');
      return event;
    });
    assert.equal(new Set(events.map((e) => e.id)).size, 24);

    const listed = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=app.burst&order=asc&limit=100',
      headers: { 'x-api-key': tenant.apiKey },
    });
    assert.equal(listed.statusCode, 200);
    const stored = listed.json<{ data: PublishedEvent[] }>().data;
    assert.deepEqual(
      stored.map((e) => e.id).sort(),
      [...events.map((e) => e.id), ...stored.filter((e) => e.data.n === -1).map((e) => e.id)].sort(),
      'every answered event is stored, and nothing else',
    );
  });
});
