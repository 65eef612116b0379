import { gzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import {
  accessibilityProblems,
  expect,
  navigateInPlace,
  ownerClient,
  SIGN_IN_BUTTON,
  serviceUrl,
  signIn,
  test,
} from './fixture.ts';

/** The little of the DOM these tests touch inside the page (the test files compile without the DOM's types). */
interface KeyValues {
  length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
}
interface InPage {
  localStorage: KeyValues;
  sessionStorage: KeyValues;
  location: { host: string };
  performance: { now(): number; getEntriesByName(name: string): { startTime: number }[] };
  WebSocket: new (url: string) => { onclose: (() => void) | null; onerror: (() => void) | null };
  addEventListener(type: string, listener: (event: { blockedURI: string }) => void): void;
}

/** The budget: JavaScript loaded on first load, gzipped. */
const JS_BUDGET_BYTES = 60 * 1024;

async function expectNoAxeProblems(page: Page) {
  const problems = await accessibilityProblems(page);
  expect(problems, `axe on ${page.url()}`).toEqual([]);
}

test('shell: one-click sign-in, the token only in memory, sign-out and sign-in again', async ({ page }) => {
  const baseUrl = serviceUrl();
  const tokens: string[] = [];
  page.on('response', async (response) => {
    if (response.url().endsWith('/api/auth/dev-oidc/token') && response.ok()) {
      tokens.push(((await response.json()) as { access_token: string }).access_token);
    }
  });
  await page.goto(`${baseUrl}/console`);
  await expect(page).toHaveURL(/\/api\/auth\/dev-oidc\/authorize\?/);
  await expectNoAxeProblems(page);
  await page.getByRole('button', { name: SIGN_IN_BUTTON }).click();
  // The demo owner has tenants: the landing goes to the first one.
  await expect(page).toHaveURL(/\/console\/t\/ten_[^/]+\/$/);
  await expect(page.getByRole('banner').getByText('owner@demo.local')).toBeVisible();
  expect(tokens).toHaveLength(1);
  const stored = await page.evaluate(() => {
    const browser = globalThis as unknown as InPage;
    const all = (s: KeyValues) =>
      Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i) ?? '')}`);
    return [...all(browser.localStorage), ...all(browser.sessionStorage)].join('\n');
  });
  expect(stored).not.toContain(tokens[0]);

  await page.getByRole('button', { name: 'Sign out' }).click();
  // The page says so at once, then goes to the provider's end-session and back: scan once it is back.
  await expect(page).toHaveURL(/\/console\/signed-out$/);
  await expect(page.getByRole('heading', { name: 'You are signed out' })).toBeVisible();
  await expectNoAxeProblems(page);
  await page.getByRole('button', { name: 'Sign in again' }).click();
  // Signed out at the provider too: it asks again.
  await page.getByRole('button', { name: SIGN_IN_BUTTON }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
});

test('shell: a 401 mid-session signs in again and comes back to the same page', async ({ consoleApp }) => {
  const { page } = consoleApp;
  await navigateInPlace(page, '/console/new-tenant?from=shell-test');
  await expect(page.getByRole('heading', { level: 1, name: 'New tenant' })).toBeVisible();
  // The token stops being accepted: the next call answers 401.
  let refused = 0;
  await page.route('**/api/console/tenants', async (route) => {
    if (refused > 0) return route.fallback();
    refused += 1;
    await route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'invalid_token', message: 'expired', requestId: 'req_test' }),
    });
  });
  const authorizations: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/auth/dev-oidc/authorize')) authorizations.push(request.url());
  });
  await page.getByLabel('Name').fill('Never made');
  await page.getByRole('button', { name: 'Create tenant' }).click();
  // Off to the provider (which remembers the browser) and back, signed in, on the same page.
  await expect.poll(() => authorizations.length).toBe(1);
  await page.waitForURL(/\/console\/new-tenant\?from=shell-test$/);
  await expect(page.getByRole('heading', { level: 1, name: 'New tenant' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  expect(refused).toBe(1);
});

test('shell: a token the service refuses right after signing in again stops at a message, not a loop', async ({
  consoleApp,
}) => {
  const { page } = consoleApp;
  const authorizations: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/auth/dev-oidc/authorize')) authorizations.push(request.url());
  });
  await page.route('**/api/auth/user', (route) =>
    route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'invalid_token', message: 'refused', requestId: 'req_test' }),
    }),
  );
  await page.reload();
  await expect(page.getByRole('alert')).toContainText(
    'The service refused the token this sign-in just received',
  );
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  // The reload's sign-in and one recovery after the first 401; the second 401 asks the user.
  expect(authorizations).toHaveLength(2);
});

test('shell: loads with no console error and no request elsewhere; JS budget and first render printed', async ({
  page,
}) => {
  const baseUrl = serviceUrl();
  const errors: string[] = [];
  const foreign: string[] = [];
  const scriptUrls = new Set<string>();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.origin !== baseUrl) foreign.push(request.url());
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/console/assets/') && url.pathname.endsWith('.js')) scriptUrls.add(url.href);
  });
  await signIn(page, `${baseUrl}/console/`);
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeVisible();
  await expect(page.locator('.loading')).toHaveCount(0);
  const firstRender = await page.evaluate(() => {
    const perf = globalThis as unknown as InPage;
    const paint = perf.performance.getEntriesByName('first-contentful-paint')[0];
    return {
      firstContentfulPaintMs: Math.round(paint?.startTime ?? -1),
      shellShownMs: Math.round(perf.performance.now()),
    };
  });
  // The files the browser loaded, fetched again for their bytes (a body is gone once its page navigated).
  const scripts = new Map<string, number>();
  for (const url of scriptUrls) {
    const body = await (await page.request.get(url)).body();
    scripts.set(new URL(url).pathname, gzipSync(body, { level: 9 }).length);
  }
  const total = [...scripts.values()].reduce((sum, n) => sum + n, 0);
  console.log(
    `console first load: ${scripts.size} JS files, ${(total / 1024).toFixed(1)} KB gzipped (budget ${JS_BUDGET_BYTES / 1024} KB)\n` +
      [...scripts].map(([name, size]) => `  ${name}  ${(size / 1024).toFixed(1)} KB`).join('\n') +
      `\nfirst render after the sign-in redirect: first contentful paint ${firstRender.firstContentfulPaintMs} ms, ` +
      `signed-in shell with its page shown at ${firstRender.shellShownMs} ms`,
  );
  expect(errors).toEqual([]);
  expect(foreign).toEqual([]);
  expect(scripts.size).toBeGreaterThan(0);
  expect(total).toBeLessThanOrEqual(JS_BUDGET_BYTES);
});

test("shell: the CSP lets the console open this origin's WebSocket and nothing else's", async ({
  consoleApp,
}) => {
  const blocked = await consoleApp.page.evaluate(async () => {
    const browser = globalThis as unknown as InPage;
    const seen: string[] = [];
    browser.addEventListener('securitypolicyviolation', (event) => seen.push(event.blockedURI));
    const open = (url: string) => {
      try {
        const socket = new browser.WebSocket(url);
        socket.onerror = () => {};
      } catch {
        // A refused URL may throw at once; the violation event still comes.
      }
    };
    open(`ws://${browser.location.host}/v1/realtime`);
    open('ws://127.0.0.2:9/elsewhere');
    // Violations arrive in order: once the second socket's is here, the first one's would be too.
    for (let waited = 0; waited < 5000 && !seen.some((uri) => uri.includes('127.0.0.2')); waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { seen, own: browser.location.host };
  });
  expect(blocked.seen.filter((uri) => uri.includes(blocked.own))).toEqual([]);
  expect(blocked.seen.filter((uri) => uri.includes('127.0.0.2'))).toHaveLength(1);
});

test('shell: a new tenant from the header, then the switcher goes back', async ({ consoleApp }) => {
  const { page, tenantId } = consoleApp;
  await page.getByRole('link', { name: 'New tenant' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'New tenant' })).toBeVisible();
  await expectNoAxeProblems(page);
  await page.getByLabel('Name').fill('Switcher second');
  await page.getByLabel('Workspace type').selectOption('community');
  await page.getByRole('button', { name: 'Create tenant' }).click();
  await expect(page).toHaveURL(/\/console\/t\/ten_[^/]+\/$/);
  const second = /\/console\/t\/([^/]+)\//.exec(page.url())?.[1];
  expect(second).not.toBe(tenantId);
  const switcher = page.getByLabel('Tenant', { exact: true });
  await expect(switcher).toHaveValue(second ?? '');
  await switcher.selectOption(tenantId);
  await expect(page).toHaveURL(new RegExp(`/console/t/${tenantId}/$`));
  await expect(switcher).toHaveValue(tenantId);
  const { data } = await ownerClient().GET('/api/console/tenants/{tenantId}', {
    params: { path: { tenantId: second ?? '' } },
  });
  expect(data).toMatchObject({ name: 'Switcher second', workspaceType: 'community', role: 'owner' });
});

test('shell: not-found pages, outside and inside a tenant', async ({ consoleApp }) => {
  const { page } = consoleApp;
  await navigateInPlace(page, '/console/nowhere/at-all');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expectNoAxeProblems(page);
  await consoleApp.goto('no-such-page');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page.getByText('No console page at "no-such-page".')).toBeVisible();
  await consoleApp.expectAccessible();
  await page.getByRole('link', { name: 'Go to the overview' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/t/${consoleApp.tenantId}/$`));
});

test('shell: with no tenant yet, the landing offers to create one', async ({ consoleApp }) => {
  const { page } = consoleApp;
  await page.route('**/api/console/tenants?*', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: '{"data":[],"nextCursor":null}' }),
  );
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await navigateInPlace(page, '/console/');
  await expect(page.getByText('You are not a member of any tenant yet.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create tenant' })).toBeVisible();
  await expectNoAxeProblems(page);
});

test('shell: a missing asset is a 404, the index is never cached and carries the CSP', async ({
  request,
}) => {
  const baseUrl = serviceUrl();
  const index = await request.get(`${baseUrl}/console/t/anything/rooms`);
  expect(index.status()).toBe(200);
  expect(index.headers()['cache-control']).toBe('no-cache');
  expect(index.headers()['content-security-policy']).toContain("script-src 'self'");
  const missing = await request.get(`${baseUrl}/console/assets/nothing-here.js`);
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toMatchObject({ error: 'not_found' });
});
