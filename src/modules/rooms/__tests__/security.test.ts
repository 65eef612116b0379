import { oneRoom, securitySuite } from '../../../../test/support/security-suite.ts';

securitySuite({
  module: 'rooms',
  setup: oneRoom,
  routes: [
    {
      method: 'POST',
      url: () => '/v1/rooms',
      payload: () => ({}),
      scope: 'rooms:write',
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'GET',
      url: () => '/v1/rooms',
      scope: 'rooms:read',
      sessions: true,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'GET',
      url: (r) => `/v1/rooms/${r.roomId}`,
      scope: 'rooms:read',
      sessions: true,
      roomScoped: true,
      namesRecords: true,
    },
    {
      method: 'PATCH',
      url: (r) => `/v1/rooms/${r.roomId}`,
      payload: () => ({ name: 'renamed' }),
      scope: 'rooms:write',
      sessions: false,
      roomScoped: true,
      namesRecords: true,
    },
    {
      method: 'DELETE',
      url: (r) => `/v1/rooms/${r.roomId}`,
      scope: 'rooms:write',
      sessions: false,
      roomScoped: true,
      namesRecords: true,
    },
  ],
});
