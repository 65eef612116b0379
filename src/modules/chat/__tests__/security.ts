import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineSecurity } from '../../../../test/support/security-suite.ts';

const common = { sessions: true, roomScoped: true, namesRecords: true } as const;

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'chat',
  sessionModules: ['rooms'],
  async setup(t, tenant) {
    const headers = bearer(tenant.apiKey);
    const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: {} });
    const roomId = room.json<{ id: string }>().id;
    const message = await call(t.app, {
      method: 'POST',
      url: `/v1/rooms/${roomId}/messages`,
      headers,
      payload: { text: 'first', actor: { type: 'agent', id: 'test:author', identityProvider: 'test' } },
    });
    return { roomId, messageId: message.json<{ id: string }>().id, emoji: '%F0%9F%91%8D' };
  },
  routes: [
    {
      method: 'POST',
      url: (r) => `/v1/rooms/${r.roomId}/messages`,
      payload: () => ({
        text: 'hello',
        actor: { type: 'agent', id: 'test:author', identityProvider: 'test' },
      }),
      scope: 'chat:write',
      ...common,
    },
    { method: 'GET', url: (r) => `/v1/rooms/${r.roomId}/messages`, scope: 'chat:read', ...common },
    {
      method: 'PATCH',
      url: (r) => `/v1/rooms/${r.roomId}/messages/${r.messageId}`,
      payload: () => ({ text: 'edited' }),
      scope: 'chat:write',
      ...common,
    },
    {
      method: 'DELETE',
      url: (r) => `/v1/rooms/${r.roomId}/messages/${r.messageId}`,
      scope: 'chat:write',
      ...common,
    },
    {
      method: 'POST',
      url: (r) => `/v1/rooms/${r.roomId}/messages/${r.messageId}/reactions/${r.emoji}?actor=test:fan`,
      scope: 'chat:write',
      ...common,
    },
    {
      method: 'DELETE',
      url: (r) => `/v1/rooms/${r.roomId}/messages/${r.messageId}/reactions/${r.emoji}?actor=test:fan`,
      scope: 'chat:write',
      ...common,
    },
  ],
});
