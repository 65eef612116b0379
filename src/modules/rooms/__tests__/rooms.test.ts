import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession, createApiKey, createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { appSuite } from '../../../../test/support/suite.ts';

interface Room {
  id: string;
  name: string | null;
  metadata: Record<string, unknown>;
}

describe('rooms module', () => {
  const s = appSuite();
  const key = () => ({ 'x-api-key': s.key });

  const create = (payload: Record<string, unknown>) =>
    call(s.t.app, { method: 'POST', url: '/v1/rooms', headers: key(), payload });

  test('create with a generated id, get, and duplicate client id -> 409', async () => {
    const made = await create({ name: 'Show', metadata: { tier: 2, live: true, color: 'red' } });
    assert.equal(made.statusCode, 201);
    const room = made.json<Room>();
    assert.match(room.id, /^room_[0-9a-z]{26}$/);
    assert.deepEqual(room.metadata, { tier: 2, live: true, color: 'red' });
    const got = await call(s.t.app, { method: 'GET', url: `/v1/rooms/${room.id}`, headers: key() });
    assert.deepEqual(got.json<Room>(), room);

    assert.equal((await create({ id: 'my-room_1' })).statusCode, 201);
    const dup = await create({ id: 'my-room_1' });
    assert.equal(dup.statusCode, 409);
    assert.equal(dup.json().error, 'conflict');
  });

  test('client ids must be URL-safe and at most 128 chars', async () => {
    for (const id of ['has space', 'slash/id', 'x'.repeat(129), '']) {
      const res = await create({ id });
      assert.equal(res.statusCode, 400, id);
      assert.equal(res.json<{ details: { field: string }[] }>().details[0]?.field, '/body/id');
    }
    assert.equal((await create({ id: 'x'.repeat(128) })).statusCode, 201);
  });

  test('metadata limits: keys, key length, value length -> 400 with details', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    const cases: [Record<string, unknown>, string][] = [
      [tooMany, '/body/metadata'],
      [{ ['k'.repeat(41)]: 'v' }, '/body/metadata'],
      [{ k: 'v'.repeat(257) }, '/body/metadata/k'],
      [{ k: { nested: true } }, '/body/metadata/k'],
    ];
    for (const [metadata, field] of cases) {
      const res = await create({ metadata });
      assert.equal(res.statusCode, 400);
      const details = res.json<{ details: { field: string }[] }>().details;
      assert.ok(
        details.some((d) => d.field === field),
        `expected a detail at ${field}: ${JSON.stringify(details)}`,
      );
    }
    assert.equal(
      (
        await create({
          metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(256)])),
        })
      ).statusCode,
      201,
    );
  });

  test('PATCH merges metadata, null removes a key, the 50-key cap holds after the merge', async () => {
    const room = (await create({ name: 'A', metadata: { a: 1, b: 'x' } })).json<Room>();
    const patched = await call(s.t.app, {
      method: 'PATCH',
      url: `/v1/rooms/${room.id}`,
      headers: key(),
      payload: { name: 'B', metadata: { a: null, c: false } },
    });
    assert.equal(patched.statusCode, 200);
    assert.deepEqual(patched.json<Room>().metadata, { b: 'x', c: false });
    assert.equal(patched.json<Room>().name, 'B');

    const full = (
      await create({ metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) })
    ).json<Room>();
    const over = await call(s.t.app, {
      method: 'PATCH',
      url: `/v1/rooms/${full.id}`,
      headers: key(),
      payload: { metadata: { extra: 1 } },
    });
    assert.equal(over.statusCode, 400);
    assert.equal(over.json<{ details: { code: string }[] }>().details[0]?.code, 'too_many_keys');
  });

  test('list: newest first, cursor pages cover every room once, metadata filters are ANDed', async () => {
    const own = await createTestTenant(s.t);
    const headers = { 'x-api-key': own.apiKey };
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await call(s.t.app, {
        method: 'POST',
        url: '/v1/rooms',
        headers,
        payload: { metadata: { parity: i % 2 === 0 ? 'even' : 'odd', tier: i % 3 } },
      });
      made.push(res.json<Room>().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/rooms?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await call(s.t.app, { method: 'GET', url, headers });
      assert.equal(page.statusCode, 200);
      const body = page.json<{ data: Room[]; nextCursor: string | null }>();
      seen.push(...body.data.map((r) => r.id));
      cursor = body.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(seen, [...made].reverse());

    const filtered = await call(s.t.app, {
      method: 'GET',
      url: '/v1/rooms?metadata.parity=even&metadata.tier=0',
      headers,
    });
    const ids = filtered.json<{ data: Room[] }>().data.map((r) => r.id);
    assert.deepEqual(ids, [made[6], made[0]]);

    const bad = await call(s.t.app, { method: 'GET', url: '/v1/rooms?cursor=not-a-cursor', headers });
    assert.equal(bad.statusCode, 400);
    const unknown = await call(s.t.app, { method: 'GET', url: '/v1/rooms?colour=red', headers });
    assert.equal(unknown.statusCode, 400);
  });

  test('DELETE removes the room; a second delete is 404', async () => {
    const room = (await create({})).json<Room>();
    const del = await call(s.t.app, { method: 'DELETE', url: `/v1/rooms/${room.id}`, headers: key() });
    assert.deepEqual(del.json(), { id: room.id, deleted: true });
    assert.equal(
      (await call(s.t.app, { method: 'DELETE', url: `/v1/rooms/${room.id}`, headers: key() })).statusCode,
      404,
    );
    assert.equal(
      (await call(s.t.app, { method: 'GET', url: `/v1/rooms/${room.id}`, headers: key() })).statusCode,
      404,
    );
  });

  test('scopes: read-only key cannot write; session tokens read, and only their room', async () => {
    const readKey = await createApiKey(s.t, s.tenant.tenantId, ['rooms:read']);
    const denied = await call(s.t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bearer(readKey),
      payload: {},
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error, 'insufficient_scope');
    assert.match(String(denied.headers['www-authenticate']), /insufficient_scope/);

    const a = (await create({ id: 'session-room-a' })).json<Room>();
    await create({ id: 'session-room-b' });
    const session = await connectSession(s.t, s.tenant.apiKey, { modules: ['rooms'], roomId: a.id });
    const own = await call(s.t.app, {
      method: 'GET',
      url: `/v1/rooms/${a.id}`,
      headers: bearer(session.token),
    });
    assert.equal(own.statusCode, 200);
    const other = await call(s.t.app, {
      method: 'GET',
      url: '/v1/rooms/session-room-b',
      headers: bearer(session.token),
    });
    assert.equal(other.statusCode, 403);
    const listed = await call(s.t.app, { method: 'GET', url: '/v1/rooms', headers: bearer(session.token) });
    assert.deepEqual(
      listed.json<{ data: Room[] }>().data.map((r) => r.id),
      [a.id],
    );
    const write = await call(s.t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bearer(session.token),
      payload: {},
    });
    assert.equal(write.statusCode, 401);
  });
});
