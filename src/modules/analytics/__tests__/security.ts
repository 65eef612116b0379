import { defineSecurity } from '../../../../test/support/security-suite.ts';

const range = { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' };

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'analytics',
  setup: async () => ({}),
  routes: [
    {
      method: 'POST',
      url: () => '/v1/analytics/events',
      payload: () => ({ event: 'Security Checked', anonymousId: 'anon-1' }),
      scope: 'analytics:write',
      sessions: true,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'POST',
      url: () => '/v1/analytics/query',
      payload: () => ({ dateRange: range, interval: 'hour' }),
      scope: 'analytics:read',
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
    {
      method: 'POST',
      url: () => '/v1/analytics/funnel',
      payload: () => ({ steps: [{ event: 'a' }, { event: 'b' }], dateRange: range }),
      scope: 'analytics:read',
      sessions: false,
      roomScoped: false,
      namesRecords: false,
    },
  ],
});
