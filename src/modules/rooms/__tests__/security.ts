import { defineSecurity, oneRoom } from '../../../../test/support/security-suite.ts';

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
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
