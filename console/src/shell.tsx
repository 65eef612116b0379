import { TenantShell } from './app.tsx';
import { tenantRoute } from './lib/router.tsx';
import { accessToken } from './lib/session.ts';

/**
 * The top of the console: sign-in gate, header (tenant switcher, user), then the tenant's pages.
 * Owned by the shell area: sign-in (OIDC code + PKCE) and the tenant switcher land here.
 */
export function App() {
  if (accessToken.value === undefined) return <p role="status">Signing in…</p>;
  if (tenantRoute.value === undefined) return <p role="status">Choosing a tenant…</p>;
  return <TenantShell />;
}
