import assert from 'node:assert/strict';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineIsolation } from '../../../../test/support/isolation-suite.ts';

/** Tenant B's room, named with the marker (its id is one tenant A may use too). */
export const isolation = defineIsolation({
  module: 'rooms',
  async setup({ inB, marker }) {
    await inB('/v1/rooms', { id: 'shared-name', name: marker, metadata: { marker } });
    return { roomId: 'shared-name' };
  },
  cases: {
    apiKey: {
      'GET /v1/rooms/:roomId': (r) => ({ method: 'GET', url: `/v1/rooms/${r.roomId}` }),
      'PATCH /v1/rooms/:roomId': (r) => ({
        method: 'PATCH',
        url: `/v1/rooms/${r.roomId}`,
        payload: { name: 'x' },
      }),
      'DELETE /v1/rooms/:roomId': (r) => ({ method: 'DELETE', url: `/v1/rooms/${r.roomId}` }),
    },
  },
  checks: {
    "B's room is untouched": async ({ t, b, marker }, r) => {
      const room = await call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${r.roomId}`,
        headers: bearer(b.apiKey),
      });
      assert.equal(room.json<{ name: string }>().name, marker);
      const rooms = await call(t.app, { method: 'GET', url: '/v1/rooms', headers: bearer(b.apiKey) });
      assert.equal(rooms.statusCode, 200);
    },
    "the room id is free in A; A's lists and actions never show B's room": async (
      { t, a, asA, marker },
      r,
    ) => {
      const sameId = await call(t.app, {
        method: 'POST',
        url: '/v1/rooms',
        headers: asA.apiKey(),
        payload: { id: r.roomId },
      });
      assert.equal(sameId.statusCode, 201, 'the same room id is free in another tenant');
      const session = await connectSession(t, a.apiKey, { modules: ['rooms'] });
      for (const headers of [asA.apiKey(), bearer(session.token)]) {
        for (const url of ['/v1/rooms', '/v1/rooms?limit=100', `/v1/rooms?metadata.marker=${marker}`]) {
          const res = await call(t.app, { method: 'GET', url, headers });
          assert.equal(res.statusCode, 200, url);
          assert.doesNotMatch(res.body, new RegExp(marker), url);
        }
      }
      const action = await call(t.app, {
        method: 'POST',
        url: '/v1/actions/get_room',
        headers: asA.apiKey(),
        payload: { arguments: { roomId: r.roomId } },
      });
      assert.doesNotMatch(action.body, new RegExp(marker));
    },
  },
});
