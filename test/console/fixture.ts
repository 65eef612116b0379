import { AxeBuilder } from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { createClient, type SvcThrowingClient } from '@svc/client';
import { loadDevIssuer, signDevToken } from '../../src/core/auth/dev-issuer.ts';
import { DATA_DIR_ENV, OWNER_TOKEN_ENV, SERVICE_URL_ENV } from './service.ts';

export { expect };

/** What every console test gets: a signed-in page on a fresh tenant, and an API key to seed it. */
export interface ConsoleApp {
  /** Signed in through the real one-click sign-in (the dev OpenID Connect provider) as the demo owner. */
  page: Page;
  /** A fresh tenant of the demo owner, every module enabled. */
  tenantId: string;
  /** The REST client with an API key of that tenant carrying every scope (`*`), to seed data. */
  api: SvcThrowingClient;
  /** Where the service listens, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  /** Opens `/console/t/<tenantId>/<pagePath>` in the signed-in page (in place: the session stays). */
  goto(pagePath: string): Promise<void>;
  /** axe on the page as it is now: fails on any serious or critical violation, listing them. */
  expectAccessible(): Promise<void>;
  /**
   * A hosted-auth JWT (dev issuer, like `svc dev-token --sub --email`) of another console user, e.g. an
   * invitee; `sub` defaults to one derived from the email. The page stays signed in as the demo owner.
   */
  signInAs(user: { email: string; name?: string; sub?: string }): Promise<string>;
}

/** A hosted-auth JWT of any user, signed with the run's dev issuer key. */
export async function devTokenFor(user: { email: string; name?: string; sub?: string }): Promise<string> {
  const dataDir = process.env[DATA_DIR_ENV];
  const issuer = dataDir === undefined ? undefined : await loadDevIssuer(dataDir, { create: false });
  if (issuer === undefined) throw new Error('no dev issuer key: run with test/console/playwright.config.ts');
  return signDevToken(
    issuer,
    {
      sub: user.sub ?? `user-${user.email}`,
      email: user.email,
      ...(user.name === undefined ? {} : { name: user.name }),
    },
    Date.now(),
  );
}

function service(): { baseUrl: string; ownerToken: string } {
  const baseUrl = process.env[SERVICE_URL_ENV];
  const ownerToken = process.env[OWNER_TOKEN_ENV];
  if (baseUrl === undefined || ownerToken === undefined) {
    throw new Error('no service: run the console tests with --config test/console/playwright.config.ts');
  }
  return { baseUrl, ownerToken };
}

/** Where the run's service listens. */
export function serviceUrl(): string {
  return service().baseUrl;
}

/** The demo owner's client (hosted-auth JWT), for `/api/console/*`. */
export function ownerClient(): SvcThrowingClient {
  const { baseUrl, ownerToken } = service();
  return createClient({ baseUrl, token: ownerToken, throwOnError: true, retry: false });
}

/** A new tenant of the demo owner with every module enabled, and an API key with every scope. */
export async function freshTenant(name: string): Promise<{ tenantId: string; apiKey: string }> {
  const owner = ownerClient();
  const { data: tenant } = await owner.POST('/api/console/tenants', {
    body: { name: name.slice(0, 200), workspaceType: 'commerce' },
  });
  const tenantId = tenant.id;
  const { data: modules } = await owner.GET('/api/console/tenants/{tenantId}/modules', {
    params: { path: { tenantId }, query: { limit: 100 } },
  });
  for (const setting of modules.data.filter((m) => !m.enabled)) {
    await owner.PUT('/api/console/tenants/{tenantId}/modules/{module}', {
      params: { path: { tenantId, module: setting.module } },
      body: { enabled: true },
    });
  }
  const { data: key } = await owner.POST('/api/console/tenants/{tenantId}/api-keys', {
    params: { path: { tenantId } },
    body: { name: 'console test seed', scopes: ['*'] },
  });
  return { tenantId, apiKey: key.key };
}

/** The button of the dev provider's sign-in page. */
export const SIGN_IN_BUTTON = 'Sign in as the demo owner (owner@demo.local)';

/**
 * Opens `url` (a console page) signed out: the console sends the browser to the provider, the one button
 * is clicked, and the console comes back to `url` signed in (its header's Sign out button shows).
 */
export async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: SIGN_IN_BUTTON }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/** Goes to a console path without reloading (a reload would sign in again: the token is in memory only). */
export async function navigateInPlace(page: Page, consolePath: string): Promise<void> {
  await page.evaluate((to) => {
    const browser = globalThis as unknown as {
      history: { pushState(state: null, title: string, url: string): void };
      dispatchEvent(event: unknown): boolean;
      PopStateEvent: new (type: string) => unknown;
    };
    browser.history.pushState(null, '', to);
    browser.dispatchEvent(new browser.PopStateEvent('popstate'));
  }, consolePath);
}

/** axe's serious and critical violations of the page as it is now, one line each. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} [${v.helpUrl}] at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}

export const test = base.extend<{ consoleApp: ConsoleApp; tenantName: string | undefined }>({
  /** The fresh tenant's name (`test.use({ tenantName })`, e.g. for screenshots); default: from the test's title. */
  tenantName: [undefined, { option: true }],
  consoleApp: async ({ page, tenantName }, use, testInfo) => {
    const { baseUrl } = service();
    const { tenantId, apiKey } = await freshTenant(tenantName ?? `console test: ${testInfo.title}`);
    const api = createClient({ baseUrl, apiKey, throwOnError: true, retry: false });
    const tenantPath = (pagePath: string) =>
      `/console/t/${encodeURIComponent(tenantId)}/${pagePath.replace(/^\/+/, '')}`;
    await signIn(page, `${baseUrl}${tenantPath('')}`);
    await use({
      page,
      tenantId,
      api,
      baseUrl,
      async goto(pagePath) {
        if (!page.url().startsWith(`${baseUrl}/console/`))
          await signIn(page, `${baseUrl}${tenantPath(pagePath)}`);
        else await navigateInPlace(page, tenantPath(pagePath));
      },
      async expectAccessible() {
        const problems = await accessibilityProblems(page);
        if (problems.length > 0) console.log(`axe on ${page.url()}:\n  ${problems.join('\n  ')}`);
        expect(problems, `serious or critical accessibility violations on ${page.url()}`).toEqual([]);
      },
      signInAs: devTokenFor,
    });
  },
});
