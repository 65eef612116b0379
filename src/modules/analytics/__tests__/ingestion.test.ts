import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { ManualClock } from '../../../core/clock.ts';
import { LIMITS } from '../schema.ts';
import { actorNamed, ingest, keyOf, query } from './support.ts';

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

describe('analytics ingestion', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(NOW);

  before(async () => {
    t = await buildTestApp({ clock });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const count = async (event: string) =>
    (
      await query(t, tenant.apiKey, {
        event,
        dateRange: { from: '2025-06-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
      })
    ).totals.events;

  test('one event: 202 with one accepted, then counted', async () => {
    const answer = await ingest(t, keyOf(tenant.apiKey), {
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
    const answer = await ingest(t, keyOf(tenant.apiKey), {
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
    assert.deepEqual(
      answer.rejections.map((r) => [r.index, r.reason]),
      [
        [1, 'missing_identity'],
        [3, 'invalid_event'],
        [4, 'reserved_event_name'],
        [5, 'too_many_properties'],
        [6, 'property_too_long'],
        [7, 'invalid_property_key'],
        [8, 'event_too_large'],
        [9, 'invalid_event'],
        [10, 'invalid_event'],
      ],
    );
    for (const r of answer.rejections) assert.ok(r.message.length > 10, r.message);
    assert.equal(await count('Partial'), 2);
  });

  test('a batch over 500 events is a 400; a body over 512 KiB a 413; nothing is recorded', async () => {
    const many = Array.from({ length: LIMITS.batchEvents + 1 }, () => ({
      event: 'Too Many',
      actor: actorNamed('test:a'),
    }));
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(tenant.apiKey),
      payload: { batch: many },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json<{ details: { code: string }[] }>().details[0]?.code, 'batch_too_large');
    const big = Array.from({ length: 40 }, () => ({
      event: 'Too Big',
      actor: actorNamed('test:a'),
      properties: { a: 'z'.repeat(4000), b: 'z'.repeat(4000), c: 'z'.repeat(4000), d: 'z'.repeat(4000) },
    }));
    const large = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(tenant.apiKey),
      payload: { batch: big },
    });
    assert.equal(large.statusCode, 413, large.body);
    assert.equal(large.json<{ error: string }>().error, 'payload_too_large');
    const exactly = await ingest(t, keyOf(tenant.apiKey), {
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
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(tenant.apiKey),
      payload: { event: 'No One' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json<{ message: string }>().message, /actor or anonymousId/);
    const both = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(tenant.apiKey),
      payload: {
        event: 'x',
        actor: actorNamed('test:a'),
        batch: [{ event: 'x', actor: actorNamed('test:a') }],
      },
    });
    assert.equal(both.statusCode, 400, both.body);
  });

  test('the actor is the Actor object: the old actorId is refused, saying to send actor', async () => {
    const single = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: keyOf(tenant.apiKey),
      payload: { event: 'Old Shape', actorId: 'test:a' },
    });
    assert.equal(single.statusCode, 400, single.body);
    const refused = single.json<{ message: string; details: { field: string }[] }>();
    assert.match(refused.message, /actorId .*send `actor`, the Actor object/);
    assert.equal(refused.details[0]?.field, '/body/actorId');
    const batch = await ingest(t, keyOf(tenant.apiKey), {
      batch: [
        { event: 'Old Shape', actorId: 'test:a' },
        { event: 'Old Shape', actor: 'test:a' },
        { event: 'Old Shape', actor: { id: 'test:a' } },
        { event: 'Old Shape', actor: actorNamed('test:a') },
      ],
    });
    assert.equal(batch.accepted, 1);
    assert.deepEqual(
      batch.rejections.map((r) => [r.index, r.reason]),
      [
        [0, 'invalid_event'],
        [1, 'invalid_event'],
        [2, 'invalid_event'],
      ],
    );
    assert.match(batch.rejections[0]?.message ?? '', /send `actor`/);
    const { rows } = await t.db.query<{ actor_id: string }>(
      `select actor_id from analytics_events where tenant_id = $1 and event = 'Old Shape'`,
      [tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => r.actor_id),
      ['test:a'],
    );
  });

  test('messageId dedupes in the same batch and in a later one', async () => {
    const first = await ingest(t, keyOf(tenant.apiKey), {
      batch: [
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-1' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-1' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-2' },
      ],
    });
    assert.deepEqual([first.accepted, first.duplicates], [2, 1]);
    clock.advance(6 * 86_400_000);
    const later = await ingest(t, keyOf(tenant.apiKey), {
      batch: [
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-2' },
        { event: 'Deduped', actor: actorNamed('test:a'), messageId: 'm-3' },
      ],
    });
    assert.deepEqual([later.accepted, later.duplicates], [1, 1]);
    assert.equal(await count('Deduped'), 3);
    // Another tenant's messageIds are its own.
    const other = await createTestTenant(t);
    const theirs = await ingest(t, keyOf(other.apiKey), {
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
    const answers = await Promise.all([1, 2, 3].map(() => ingest(t, keyOf(tenant.apiKey), { batch })));
    assert.equal(
      answers.reduce((n, a) => n + a.accepted, 0),
      50,
    );
    assert.equal(
      answers.reduce((n, a) => n + a.duplicates, 0),
      100,
    );
    assert.equal(await count('Raced'), 50);
  });

  test('two instances on one database, the same messageIds at once: each event recorded once', async () => {
    const second = await buildTestApp({ clock, db: t.db });
    try {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        event: 'Raced Instances',
        actor: actorNamed('test:a'),
        messageId: `instances-${i}`,
      }));
      const answers = await Promise.all(
        [t, second, t, second].map((app) => ingest(app, keyOf(tenant.apiKey), { batch })),
      );
      assert.equal(
        answers.reduce((n, a) => n + a.accepted, 0),
        100,
      );
      assert.equal(
        answers.reduce((n, a) => n + a.duplicates, 0),
        300,
      );
      assert.equal(await count('Raced Instances'), 100);
    } finally {
      await second.close();
    }
  });

  test('receivedAt is recorded; a timestamp far ahead is clamped to it; one past retention is refused', async () => {
    const now = clock.now();
    const answer = await ingest(t, keyOf(tenant.apiKey), {
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
    const { rows } = await t.db.query<{ ts: Date; received_at: Date; clamped: boolean }>(
      `select ts, received_at, clamped from analytics_events where tenant_id = $1 and event = 'Clocked' order by ts`,
      [tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => [new Date(r.ts).getTime(), new Date(r.received_at).getTime(), r.clamped]),
      [
        [now - 3_600_000, now, false],
        [now, now, true],
      ],
    );
  });

  test('a session token writes only as its own actor', async () => {
    const session = await connectSession(t, tenant.apiKey, { modules: ['analytics'], actorId: 'test:self' });
    const own = await ingest(t, bearer(session.token), {
      batch: [
        { event: 'By Session' },
        { event: 'By Session', actor: actorNamed('test:self') },
        { event: 'By Session', actor: actorNamed('test:someone-else') },
      ],
    });
    assert.equal(own.accepted, 2);
    assert.deepEqual(
      own.rejections.map((r) => [r.index, r.reason]),
      [[2, 'actor_mismatch']],
    );
    const single = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: bearer(session.token),
      payload: { event: 'By Session', actor: actorNamed('test:someone-else') },
    });
    assert.equal(single.statusCode, 403, single.body);
    assert.equal(single.json<{ error: string }>().error, 'forbidden');
    const { rows } = await t.db.query<{ actor_id: string }>(
      `select distinct actor_id from analytics_events where tenant_id = $1 and event = 'By Session'`,
      [tenant.tenantId],
    );
    assert.deepEqual(
      rows.map((r) => r.actor_id),
      ['test:self'],
    );
    const read = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/query',
      headers: bearer(session.token),
      payload: { dateRange: { preset: 'today' } },
    });
    assert.equal(read.statusCode, 401, 'queries are for API keys');
  });
});

describe('analytics ingestion from a browser, with a product key', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(Date.now());

  before(async () => {
    t = await buildTestApp({ clock, config: { authFailureLimit: 1_000_000 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const productKey = async (body: Record<string, unknown>) => {
    // The console token is signed on the real clock: this app's clock catches up with it first.
    clock.advance(Math.max(0, Date.now() - clock.now()));
    const res = await call(t.app, {
      method: 'POST',
      url: `/api/console/tenants/${tenant.tenantId}/product-keys`,
      headers: bearer(tenant.ownerToken),
      payload: { name: 'storefront', ...body },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ key: string }>().key;
  };
  const send = (
    key: string,
    payload: object,
    headers: Record<string, string> = {},
    remoteAddress = '198.51.100.7',
  ) =>
    call(t.app, {
      method: 'POST',
      url: '/v1/analytics/events',
      headers: { 'x-svc-product-key': key, ...headers },
      payload,
      remoteAddress,
    });

  test('anonymous events and events for the actor the page names are recorded', async () => {
    const key = await productKey({ allowedOrigins: ['https://shop.example'] });
    const res = await send(
      key,
      {
        batch: [
          { event: 'Page Viewed', anonymousId: 'b7e0c2', properties: { path: '/shows/1' } },
          { event: 'Page Viewed', actor: actorNamed('shop:42'), anonymousId: 'b7e0c2' },
        ],
      },
      { origin: 'https://shop.example' },
    );
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json<{ accepted: number }>().accepted, 2);
    clock.advance(1); // a range that ends now excludes now
    const counted = await query(t, tenant.apiKey, {
      metrics: ['events', 'uniques'],
      event: 'Page Viewed',
      dateRange: { preset: 'today' },
    });
    assert.deepEqual(counted.totals, { events: 2, uniques: 2 });
  });

  test('another origin: 403; the query routes do not take a product key', async () => {
    const key = await productKey({ allowedOrigins: ['https://shop.example'] });
    const foreign = await send(key, { event: 'x', anonymousId: 'a' }, { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403, foreign.body);
    const read = await call(t.app, {
      method: 'POST',
      url: '/v1/analytics/query',
      headers: { 'x-svc-product-key': key },
      payload: { dateRange: { preset: 'today' } },
    });
    assert.equal(read.statusCode, 401, read.body);
  });

  test('past the key’s rate for one client address: 429 with Retry-After, nothing recorded', async () => {
    const key = await productKey({ rateLimitPerMinute: 2 });
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (await send(key, { event: 'Limited', anonymousId: 'a' }, {}, '203.0.113.9')).statusCode,
        202,
      );
    }
    const refused = await send(key, { event: 'Limited', anonymousId: 'a' }, {}, '203.0.113.9');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal(
      (await send(key, { event: 'Limited', anonymousId: 'a' }, {}, '203.0.113.10')).statusCode,
      202,
    );
    clock.advance(1);
    const counted = await query(t, tenant.apiKey, { event: 'Limited', dateRange: { preset: 'today' } });
    assert.equal(counted.totals.events, 3);
  });
});
