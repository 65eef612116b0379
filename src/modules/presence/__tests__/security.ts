import { defineSecurity, oneRoom } from '../../../../test/support/security-suite.ts';

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'presence',
  sessionModules: ['rooms'],
  setup: oneRoom,
  routes: [
    {
      method: 'GET',
      url: (r) => `/v1/rooms/${r.roomId}/presence`,
      scope: 'presence:read',
      sessions: true,
      roomScoped: true,
      namesRecords: true,
    },
  ],
});
