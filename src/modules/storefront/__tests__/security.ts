import { defineSecurity } from '../../../../test/support/security-suite.ts';

/**
 * The storefront module has no /v1 route for the shared suite: its console routes are governed by
 * console roles and membership (console.test.ts, mobile-builds.test.ts and the isolation suite), its
 * public routes by product keys (public.test.ts: no key, unknown, revoked, another tenant's, origins,
 * rate limit), and the build callback by its signature (mobile-builds.test.ts).
 */
export const security = defineSecurity({
  module: 'storefront',
  setup: async () => ({}),
  routes: [],
});
