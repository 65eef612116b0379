import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { enableModule } from '../../../../test/support/module-settings.ts';
import { appSuite } from '../../../../test/support/suite.ts';

/** What these tests read of a room. */
type Room = { id: string; name: string | null };

describe('rooms: the configured maximum and concurrent creations', () => {
  const s = appSuite({ tenants: 0 });

  test('the configured maxRooms is enforced', async () => {
    const small = await createTestTenant(s.t);
    await enableModule(s.t, small, 'rooms', { maxRooms: 1 });
    const headers = { 'x-api-key': small.apiKey };
    assert.equal(
      (await call(s.t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} })).statusCode,
      201,
    );
    const second = await call(s.t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} });
    assert.equal(second.statusCode, 409);
  });

  test('concurrent creations in one tenant share transactions; the maximum and a duplicate id fail only their own request', async () => {
    const busy = await createTestTenant(s.t);
    const setMax = (maxRooms: number) => enableModule(s.t, busy, 'rooms', { maxRooms });
    const headers = { 'x-api-key': busy.apiKey };
    const createAll = (payloads: Record<string, unknown>[]) =>
      Promise.all(
        payloads.map((payload) => call(s.t.app, { method: 'POST', url: '/v1/rooms', headers, payload })),
      );
    const stored = async () =>
      (await call(s.t.app, { method: 'GET', url: '/v1/rooms?limit=50', headers })).json<{ data: Room[] }>()
        .data;
    await setMax(13);
    assert.deepEqual(await stored(), []);

    // 10 at once while the tenant's counter is busy: the 9 that wait are written in one statement,
    // each answered with its own room, each room with one room.created event traced to its request.
    // Room-writing statements are watched (and the first one held) as the app sends them.
    const roomWrites: unknown[] = [];
    let release = () => {};
    const busyCounter = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isRoomIds = (value: unknown): boolean =>
      Array.isArray(value) ? isRoomIds(value[0]) : typeof value === 'string' && value.startsWith('room_');
    const tenantQuery = s.t.db.tenantQuery;
    s.t.db.tenantQuery = async (tenantId, sql, params) => {
      if (sql.includes('insert into rooms')) {
        roomWrites.push(params?.find(isRoomIds));
        if (roomWrites.length === 1) await busyCounter;
      }
      return tenantQuery(tenantId, sql, params);
    };
    let first: Awaited<ReturnType<typeof call>>[];
    try {
      const answers = createAll(Array.from({ length: 10 }, (_, i) => ({ name: `r${i}` })));
      await eventually(
        '9 creations waiting',
        () => s.t.app.services.groupCommit.waiting('rooms.create', busy.tenantId) === 9,
      );
      release();
      first = await answers;
    } finally {
      s.t.db.tenantQuery = tenantQuery;
    }
    assert.deepEqual(
      first.map((a) => a.statusCode),
      Array(10).fill(201),
    );
    const made = first.map((a) => a.json<Room>());
    // The first creation alone, then the 9 that waited for it in one statement, in arrival order.
    assert.deepEqual(roomWrites, [made[0]?.id, made.slice(1).map((r) => r.id)]);
    assert.deepEqual(
      made.map((r) => r.name),
      Array.from({ length: 10 }, (_, i) => `r${i}`),
    );
    const events = await call(s.t.app, {
      method: 'GET',
      url: '/v1/events?type=room.created&limit=50',
      headers,
    });
    const data = events.json<{ data: { data: { roomId: string }; trace: { requestId: string } }[] }>().data;
    assert.deepEqual(data.map((e) => e.data.roomId).sort(), made.map((r) => r.id).sort());
    assert.deepEqual(
      data.map((e) => e.trace.requestId).sort(),
      first.map((a) => a.headers['x-request-id']).sort(),
    );

    // 6 at once where 3 fit, two of them asking for one id: exactly 3 are created, and each refusal says
    // which rule it broke. What the answers say is what is stored.
    const second = await createAll([{ id: 'twin' }, { id: 'twin' }, {}, {}, {}, {}]);
    const created = second.filter((a) => a.statusCode === 201).map((a) => a.json<Room>());
    const refused = second.filter((a) => a.statusCode !== 201);
    assert.equal(created.length, 3);
    assert.ok(created.filter((r) => r.id === 'twin').length <= 1);
    for (const answer of refused) {
      assert.equal(answer.statusCode, 409);
      assert.match(
        answer.json<{ message: string }>().message,
        /^(room twin already exists|this tenant already has 13 rooms, its configured maximum)$/,
      );
    }
    assert.deepEqual((await stored()).map((r) => r.id).sort(), [...made, ...created].map((r) => r.id).sort());
    // The count matches the rooms stored: with room for one more, one more fits.
    await setMax(14);
    assert.deepEqual((await createAll([{}, {}])).map((a) => a.statusCode).sort(), [201, 409]);
  });
});
