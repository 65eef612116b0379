import { defineIsolation, type IsolationCase } from '../../../../test/support/isolation-suite.ts';

interface Records {
  webhookId: string;
  deliveryId: string;
}

/** The endpoint routes, the same under /v1 (`/v1`) and the console (`/api/console/tenants/:tenantId`). */
function endpointCases(prefix: string): Record<string, IsolationCase<Records>> {
  const at = (tenantId: string) => (prefix === '/v1' ? '/v1' : `/api/console/tenants/${tenantId}`);
  const route =
    (
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      tail: (r: Records) => string,
      payload?: Record<string, unknown>,
    ) =>
    (r: Records, { b }: { b: { tenantId: string } }) => ({
      method,
      url: `${at(b.tenantId)}${tail(r)}`,
      ...(payload === undefined ? {} : { payload }),
    });
  return {
    [`GET ${prefix}/webhooks/:webhookId`]: route('GET', (r) => `/webhooks/${r.webhookId}`),
    [`PATCH ${prefix}/webhooks/:webhookId`]: route('PATCH', (r) => `/webhooks/${r.webhookId}`, {
      enabled: false,
    }),
    [`DELETE ${prefix}/webhooks/:webhookId`]: route('DELETE', (r) => `/webhooks/${r.webhookId}`),
    [`POST ${prefix}/webhooks/:webhookId/rotate-secret`]: route(
      'POST',
      (r) => `/webhooks/${r.webhookId}/rotate-secret`,
      {
        secret: 'a-new-secret-of-tenant-a',
      },
    ),
    [`POST ${prefix}/webhooks/:webhookId/test`]: route('POST', (r) => `/webhooks/${r.webhookId}/test`),
    [`POST ${prefix}/webhooks/:webhookId/replay`]: route('POST', (r) => `/webhooks/${r.webhookId}/replay`, {
      since: '2020-01-01T00:00:00.000Z',
    }),
    [`GET ${prefix}/webhooks/:webhookId/deliveries`]: route(
      'GET',
      (r) => `/webhooks/${r.webhookId}/deliveries`,
    ),
    [`GET ${prefix}/webhook-deliveries/:deliveryId`]: route(
      'GET',
      (r) => `/webhook-deliveries/${r.deliveryId}`,
    ),
    [`POST ${prefix}/webhook-deliveries/:deliveryId/redeliver`]: route(
      'POST',
      (r) => `/webhook-deliveries/${r.deliveryId}/redeliver`,
    ),
  };
}

/** Tenant B's endpoint (its URL and secret hold the marker) and the delivery of its test event. */
export const isolation = defineIsolation({
  module: 'webhooks',
  async setup({ inB, marker }) {
    const hook = await inB('/v1/webhooks', {
      url: `https://example.test/${marker}`,
      secret: `${marker}-secret-0123456789`,
      eventTypes: ['app.*'],
    });
    const webhookId = hook.json<{ id: string }>().id;
    const test = await inB(`/v1/webhooks/${webhookId}/test`, undefined, { status: 202 });
    return { webhookId, deliveryId: test.json<{ id: string }>().id };
  },
  cases: {
    apiKey: endpointCases('/v1'),
    console: {
      'POST /api/console/tenants/:tenantId/webhooks': (_r, { b }) => ({
        method: 'POST',
        url: `/api/console/tenants/${b.tenantId}/webhooks`,
        payload: { url: 'https://example.test/a', secret: 'tenant-a-secret-0123' },
      }),
      'GET /api/console/tenants/:tenantId/webhooks': (_r, { b }) => ({
        method: 'GET',
        url: `/api/console/tenants/${b.tenantId}/webhooks`,
      }),
      ...endpointCases('/api/console/tenants/:tenantId'),
    },
  },
});
