import { defineIsolation } from '../../../../test/support/isolation-suite.ts';
import { oneRoom } from '../../../../test/support/security-suite.ts';

/** Tenant B's room: A's key may neither read nor write its documents. */
export const isolation = defineIsolation({
  module: 'sync',
  setup: ({ t, b }) => oneRoom(t, b),
  cases: {
    apiKey: {
      'GET /v1/sync/:roomId': (r) => ({ method: 'GET', url: `/v1/sync/${r.roomId}` }),
      'GET /v1/sync/:roomId/:docName': (r) => ({ method: 'GET', url: `/v1/sync/${r.roomId}/notes` }),
      'GET /v1/rooms/:roomId/ydoc': (r) => ({ method: 'GET', url: `/v1/rooms/${r.roomId}/ydoc` }),
      'GET /v1/rooms/:roomId/ydoc-binary': (r) => ({
        method: 'GET',
        url: `/v1/rooms/${r.roomId}/ydoc-binary`,
      }),
      'PUT /v1/rooms/:roomId/ydoc-binary': (r) => ({
        method: 'PUT',
        url: `/v1/rooms/${r.roomId}/ydoc-binary`,
        payload: { update: 'AAA=' },
      }),
    },
  },
});
