import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { actorNamed, createProductKey, postEvents, postQuery, query } from './support.ts';

describe('analytics ingestion from a browser, with a product key', () => {
  const clock = new ManualClock(Date.now());
  const s = appSuite({ clock, config: { authFailureLimit: 1_000_000 } });

  const productKey = (body: Record<string, unknown>) => {
    // The console token is signed on the real clock: this app's clock catches up with it first.
    clock.advance(Math.max(0, Date.now() - clock.now()));
    return createProductKey(s.t, s.tenant, body);
  };
  const send = (
    key: string,
    payload: object,
    headers: Record<string, string> = {},
    remoteAddress = '198.51.100.7',
  ) => postEvents(s.t, { 'x-svc-product-key': key, ...headers }, payload, { remoteAddress });

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
    const counted = await query(s.t, s.tenant.apiKey, {
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
    const read = await postQuery(s.t, { 'x-svc-product-key': key }, { dateRange: { preset: 'today' } });
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
    const counted = await query(s.t, s.tenant.apiKey, { event: 'Limited', dateRange: { preset: 'today' } });
    assert.equal(counted.totals.events, 3);
  });
});
