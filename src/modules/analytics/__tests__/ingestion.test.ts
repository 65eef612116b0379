import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { LIMITS } from '../schema.ts';
import {
  actorNamed,
  ingest,
  ingestionSuite,
  keyOf,
  postEvents,
  postQuery,
  rejectionReasons,
} from './support.ts';

/** What one request to POST /v1/analytics/events records, and what it refuses, event by event. */
describe('analytics ingestion', () => {
  const { s, count } = ingestionSuite();

  test('one event: 202 with one accepted, then counted', async () => {
    const answer = await ingest(s.t, keyOf(s.tenant.apiKey), {
      event: 'Show Watched',
      actor: actorNamed('test:ann'),
    });
    assert.deepEqual(
      { accepted: answer.accepted, duplicates: answer.duplicates, rejected: answer.rejected },
      { accepted: 1, duplicates: 0, rejected: 0 },
    );
    assert.equal(await count('Show Watched'), 1);
  });

  test('a batch is not all-or-nothing: each rejection has its index and reason', async () => {
    const answer = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        { event: 'Partial', actor: actorNamed('test:a') },
        { event: 'Partial' },
        { event: 'Partial', anonymousId: 'anon-1', properties: { n: 1 } },
        { event: '', actor: actorNamed('test:a') },
        { event: '$room.created', actor: actorNamed('test:a') },
        {
          event: 'Partial',
          actor: actorNamed('test:a'),
          properties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])),
        },
        {
          event: 'Partial',
          actor: actorNamed('test:a'),
          properties: { long: 'x'.repeat(LIMITS.propertyStringChars + 1) },
        },
        { event: 'Partial', actor: actorNamed('test:a'), properties: { ['k'.repeat(201)]: 1 } },
        {
          event: 'Partial',
          actor: actorNamed('test:a'),
          properties: { blob: 'y'.repeat(LIMITS.eventBytes) },
        },
        'not an object',
        { event: 'Partial', actor: actorNamed('test:a'), unknownField: true },
      ],
    });
    assert.equal(answer.accepted, 2);
    assert.equal(answer.rejected, 9);
    assert.deepEqual(rejectionReasons(answer), [
      [1, 'missing_identity'],
      [3, 'invalid_event'],
      [4, 'reserved_event_name'],
      [5, 'too_many_properties'],
      [6, 'property_too_long'],
      [7, 'invalid_property_key'],
      [8, 'event_too_large'],
      [9, 'invalid_event'],
      [10, 'invalid_event'],
    ]);
    for (const r of answer.rejections) assert.ok(r.message.length > 10, r.message);
    assert.equal(await count('Partial'), 2);
  });

  test('a batch over 500 events is a 400; a body over 512 KiB a 413; nothing is recorded', async () => {
    const many = Array.from({ length: LIMITS.batchEvents + 1 }, () => ({
      event: 'Too Many',
      actor: actorNamed('test:a'),
    }));
    const res = await postEvents(s.t, keyOf(s.tenant.apiKey), { batch: many });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json<{ details: { code: string }[] }>().details[0]?.code, 'batch_too_large');
    const big = Array.from({ length: 40 }, () => ({
      event: 'Too Big',
      actor: actorNamed('test:a'),
      properties: { a: 'z'.repeat(4000), b: 'z'.repeat(4000), c: 'z'.repeat(4000), d: 'z'.repeat(4000) },
    }));
    const large = await postEvents(s.t, keyOf(s.tenant.apiKey), { batch: big });
    assert.equal(large.statusCode, 413, large.body);
    assert.equal(large.json<{ error: string }>().error, 'payload_too_large');
    const exactly = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: Array.from({ length: LIMITS.batchEvents }, () => ({
        event: 'Full Batch',
        actor: actorNamed('test:a'),
      })),
    });
    assert.equal(exactly.accepted, LIMITS.batchEvents);
    assert.equal(await count('Too Many'), 0);
    assert.equal(await count('Too Big'), 0);
  });

  test('a single invalid event is a 400 naming the problem', async () => {
    const res = await postEvents(s.t, keyOf(s.tenant.apiKey), { event: 'No One' });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json<{ message: string }>().message, /actor or anonymousId/);
    const both = await postEvents(s.t, keyOf(s.tenant.apiKey), {
      event: 'x',
      actor: actorNamed('test:a'),
      batch: [{ event: 'x', actor: actorNamed('test:a') }],
    });
    assert.equal(both.statusCode, 400, both.body);
  });

  test('the actor is the Actor object: the old actorId is refused, saying to send actor', async () => {
    const single = await postEvents(s.t, keyOf(s.tenant.apiKey), { event: 'Old Shape', actorId: 'test:a' });
    assert.equal(single.statusCode, 400, single.body);
    const refused = single.json<{ message: string; details: { field: string }[] }>();
    assert.match(refused.message, /actorId .*send `actor`, the Actor object/);
    assert.equal(refused.details[0]?.field, '/body/actorId');
    const batch = await ingest(s.t, keyOf(s.tenant.apiKey), {
      batch: [
        { event: 'Old Shape', actorId: 'test:a' },
        { event: 'Old Shape', actor: 'test:a' },
        { event: 'Old Shape', actor: { id: 'test:a' } },
        { event: 'Old Shape', actor: actorNamed('test:a') },
      ],
    });
    assert.equal(batch.accepted, 1);
    assert.deepEqual(rejectionReasons(batch), [
      [0, 'invalid_event'],
      [1, 'invalid_event'],
      [2, 'invalid_event'],
    ]);
    assert.match(batch.rejections[0]?.message ?? '', /send `actor`/);
    const { rows } = await s.t.db.query<{ actor_id: string }>(
      `select actor_id from analytics_events where tenant_id = $1 and event = 'Old Shape'`,
      [s.tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => r.actor_id),
      ['test:a'],
    );
  });

  test('a session token writes only as its own actor', async () => {
    const session = await connectSession(s.t, s.tenant.apiKey, {
      modules: ['analytics'],
      actorId: 'test:self',
    });
    const own = await ingest(s.t, bearer(session.token), {
      batch: [
        { event: 'By Session' },
        { event: 'By Session', actor: actorNamed('test:self') },
        { event: 'By Session', actor: actorNamed('test:someone-else') },
      ],
    });
    assert.equal(own.accepted, 2);
    assert.deepEqual(rejectionReasons(own), [[2, 'actor_mismatch']]);
    const single = await postEvents(s.t, bearer(session.token), {
      event: 'By Session',
      actor: actorNamed('test:someone-else'),
    });
    assert.equal(single.statusCode, 403, single.body);
    assert.equal(single.json<{ error: string }>().error, 'forbidden');
    const { rows } = await s.t.db.query<{ actor_id: string }>(
      `select distinct actor_id from analytics_events where tenant_id = $1 and event = 'By Session'`,
      [s.tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => r.actor_id),
      ['test:self'],
    );
    const read = await postQuery(s.t, bearer(session.token), { dateRange: { preset: 'today' } });
    assert.equal(read.statusCode, 401, 'queries are for API keys');
  });
});
