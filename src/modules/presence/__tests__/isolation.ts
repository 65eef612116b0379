import { defineIsolation } from '../../../../test/support/isolation-suite.ts';
import { oneRoom } from '../../../../test/support/security-suite.ts';

/** Tenant B's room: A's key may not read who is in it. */
export const isolation = defineIsolation({
  module: 'presence',
  setup: ({ t, b }) => oneRoom(t, b),
  cases: {
    apiKey: {
      'GET /v1/rooms/:roomId/presence': (r) => ({ method: 'GET', url: `/v1/rooms/${r.roomId}/presence` }),
    },
  },
});
