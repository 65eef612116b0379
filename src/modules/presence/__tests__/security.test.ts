import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { securitySuite } from '../../../../test/support/security-suite.ts';

securitySuite({
  module: 'presence',
  sessionModules: ['rooms'],
  async setup(t, tenant) {
    const res = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: bearer(tenant.apiKey),
      payload: {},
    });
    return { roomId: res.json<{ id: string }>().id };
  },
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
