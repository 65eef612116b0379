import { oneRoom, securitySuite } from '../../../../test/support/security-suite.ts';

securitySuite({
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
