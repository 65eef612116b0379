import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { defineSecurity } from '../../../../test/support/security-suite.ts';

const byId = { sessions: false, roomScoped: false, namesRecords: true } as const;
const scope = 'webhooks:manage';

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'webhooks',
  async setup(t, tenant) {
    const headers = bearer(tenant.apiKey);
    const endpoint = await call(t.app, {
      method: 'POST',
      url: '/v1/webhooks',
      headers,
      payload: { url: 'http://127.0.0.1:9/hook', secret: 'a-secret-of-at-least-16', eventTypes: null },
    });
    const webhookId = endpoint.json<{ id: string }>().id;
    const sent = await call(t.app, { method: 'POST', url: `/v1/webhooks/${webhookId}/test`, headers });
    return { webhookId, deliveryId: sent.json<{ id: string }>().id };
  },
  routes: [
    {
      method: 'POST',
      url: () => '/v1/webhooks',
      payload: () => ({ url: 'http://127.0.0.1:9/hook', secret: 'a-secret-of-at-least-16' }),
      scope,
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'GET',
      url: () => '/v1/webhooks',
      scope,
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
    { method: 'GET', url: (r) => `/v1/webhooks/${r.webhookId}`, scope, ...byId },
    {
      method: 'PATCH',
      url: (r) => `/v1/webhooks/${r.webhookId}`,
      payload: () => ({ enabled: false }),
      scope,
      ...byId,
    },
    { method: 'DELETE', url: (r) => `/v1/webhooks/${r.webhookId}`, scope, ...byId },
    {
      method: 'POST',
      url: (r) => `/v1/webhooks/${r.webhookId}/rotate-secret`,
      payload: () => ({ secret: 'another-secret-of-16-chars' }),
      scope,
      ...byId,
    },
    { method: 'POST', url: (r) => `/v1/webhooks/${r.webhookId}/test`, scope, ...byId },
    {
      method: 'POST',
      url: (r) => `/v1/webhooks/${r.webhookId}/replay`,
      payload: () => ({ since: '2020-01-01T00:00:00.000Z' }),
      scope,
      ...byId,
    },
    { method: 'GET', url: (r) => `/v1/webhooks/${r.webhookId}/deliveries`, scope, ...byId },
    { method: 'GET', url: (r) => `/v1/webhook-deliveries/${r.deliveryId}`, scope, ...byId },
    {
      method: 'POST',
      url: (r) => `/v1/webhook-deliveries/${r.deliveryId}/redeliver`,
      scope,
      ...byId,
      // No worker runs here, so the setup's delivery is still pending: the 409 says every check passed.
      control: 409,
    },
  ],
});
