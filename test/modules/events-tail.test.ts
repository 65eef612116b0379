import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

/** `after`: the live tail of the events explorer asks for what came after the last event it shows. */
describe('tenant events: the after filter', () => {
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
});
