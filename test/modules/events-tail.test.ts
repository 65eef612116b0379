import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApiKey, createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

/**
 * `after`: the live tail of the events explorer asks for what came after the last event it shows; `actor`:
 * who caused them.
 */
describe('tenant events: the after and actor filters', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('after=<id> answers only later events, oldest first with order=asc, with the other filters', async () => {
    const own = await createTestTenant(t);
    const headers = { 'x-api-key': own.apiKey };
    const publish = async (type: string, n: number) => {
      const res = await call(t.app, {
        method: 'POST',
        url: '/v1/events',
        headers,
        payload: { type, data: { n } },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ id: string }>().id;
    };
    const list = async (query: string) => {
      const res = await call(t.app, { method: 'GET', url: `/v1/events${query}`, headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { id: string; data: { n: number } }[] }>().data.map((e) => e.data.n);
    };
    const first = await publish('app.tail', 1);
    await publish('app.tail', 2);
    await publish('app.other', 3);
    const fourth = await publish('app.tail', 4);

    assert.deepEqual(await list(`?after=${first}&order=asc`), [2, 3, 4]);
    assert.deepEqual(await list(`?after=${first}`), [4, 3, 2], 'newest first unless asked');
    assert.deepEqual(await list(`?after=${first}&order=asc&type=app.tail`), [2, 4]);
    assert.deepEqual(await list(`?after=${fourth}&order=asc`), [], 'nothing after the newest');
    await publish('app.tail', 5);
    assert.deepEqual(await list(`?after=${fourth}&order=asc`), [5], 'a poll sees what arrived since');

    const bad = await call(t.app, { method: 'GET', url: '/v1/events?after=room_1', headers });
    assert.equal(bad.statusCode, 400);
    const other = await createTestTenant(t);
    const stranger = await call(t.app, {
      method: 'GET',
      url: `/v1/events?after=${first}&type=app.*`,
      headers: { 'x-api-key': other.apiKey },
    });
    assert.equal(stranger.statusCode, 200, stranger.body);
    assert.deepEqual(stranger.json<{ data: unknown[] }>().data, [], "another tenant's events stay its own");
  });

  test('actor=<id> answers only the events that actor caused', async () => {
    const own = await createTestTenant(t);
    const second = await createApiKey(t, own.tenantId, ['events:read', 'events:write']);
    const publish = async (key: string, n: number) => {
      const res = await call(t.app, {
        method: 'POST',
        url: '/v1/events',
        headers: { 'x-api-key': key },
        payload: { type: 'app.who', data: { n } },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json<{ trace: { actor?: { kind: string; id: string } } }>().trace.actor;
    };
    const first = await publish(own.apiKey, 1);
    const other = await publish(second, 2);
    await publish(own.apiKey, 3);
    assert.equal(first?.kind, 'api_key');
    assert.notEqual(first?.id, other?.id);
    const list = async (query: string) => {
      const res = await call(t.app, {
        method: 'GET',
        url: `/v1/events${query}`,
        headers: { 'x-api-key': second },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: { data: { n: number } }[] }>().data.map((e) => e.data.n);
    };
    assert.deepEqual(await list(`?type=app.who&actor=${first?.id}`), [3, 1]);
    assert.deepEqual(await list(`?type=app.who&actor=${other?.id}&order=asc`), [2]);
    assert.deepEqual(await list('?type=app.who&actor=key_nobody'), []);
  });
});
