import type { Page } from '@playwright/test';
import { expect, test } from './fixture.ts';

/** Accepts the next confirmation the page asks (ConfirmButton's window.confirm). */
const acceptNextConfirm = (page: Page) => page.once('dialog', (dialog) => void dialog.accept());

/** A call to the service with an API key, as a backend would make it: the status and the error code. */
async function withKey(baseUrl: string, key: string, path: string) {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

test("overview: enabled modules, today's counts by type and the recent events", async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  await consoleApp.goto('');
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByText('No events yet today.')).toBeVisible();
  await expect(page.getByText('No events yet.', { exact: true })).toBeVisible();

  await api.POST('/v1/events', { body: { type: 'app.order.paid', data: { total: 10 } } });
  await api.POST('/v1/events', { body: { type: 'app.order.paid', data: { total: 20 } } });
  await api.POST('/v1/events', { body: { type: 'app.cart.viewed', data: {} } });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const modules = page.getByRole('region', { name: 'Enabled modules' });
  await expect(modules.getByRole('listitem').filter({ hasText: /^Rooms$/ })).toBeVisible();
  await expect(modules.getByRole('listitem').filter({ hasText: /^Chat$/ })).toBeVisible();

  const today = page.getByRole('table', { name: 'Events today by type' });
  await expect(today.getByRole('row', { name: 'app.order.paid 2' })).toBeVisible();
  await expect(today.getByRole('row', { name: 'app.cart.viewed 1' })).toBeVisible();
  // Each type opens the events explorer on that type since midnight.
  await expect(today.getByRole('link', { name: 'app.order.paid' })).toHaveAttribute(
    'href',
    new RegExp(
      `^/console/t/${consoleApp.tenantId}/events\\?type=app\\.order\\.paid&since=\\d{4}-\\d{2}-\\d{2}T`,
    ),
  );

  const recent = page.getByRole('region', { name: 'Recent events' });
  await expect(recent.getByRole('cell', { name: 'app.cart.viewed' })).toBeVisible();
  await expect(recent.getByRole('cell', { name: 'app.order.paid' })).toHaveCount(2);
  await consoleApp.expectAccessible();

  await recent.getByRole('link', { name: 'Open the events explorer' }).click();
  await expect(page).toHaveURL(new RegExp(`/console/t/${consoleApp.tenantId}/events$`));
});

test('modules: settings are checked field by field, saved, and a module is disabled and enabled', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  await consoleApp.goto('modules');
  const chat = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Chat/ }) });
  await expect(chat.getByText('Enabled', { exact: true })).toBeVisible();
  await chat.getByRole('button', { name: 'Show Chat settings' }).click();
  const form = page.getByRole('form', { name: 'Chat settings' });
  await expect(form.getByLabel('Max length')).toHaveValue('4000');
  await consoleApp.expectAccessible();

  // The service's validation message appears under the field it names, and nothing is saved.
  await form.getByLabel('Max length').fill('0');
  await form.getByRole('button', { name: 'Save Chat settings' }).click();
  await expect(form.locator('#module-chat-maxLength-error')).toHaveText(/must be >= 1/);
  await expect(form.getByRole('alert').filter({ hasText: 'invalid' }).first()).toContainText('Request id');

  await form.getByLabel('Max length').fill('140');
  await form.getByLabel('Blocked words').fill('spoiler\nrefund');
  await form.getByRole('button', { name: 'Save Chat settings' }).click();
  await expect(form.getByText('Chat settings saved.')).toBeVisible();
  await expect(form.locator('#module-chat-maxLength-error')).toHaveCount(0);
  const { data: catalog } = await api.GET('/v1/modules/catalog', { params: { query: { limit: 100 } } });
  const chatConfig = catalog.data.find((m) => m.name === 'chat')?.config;
  expect(chatConfig).toMatchObject({ maxLength: 140, blockedWords: ['spoiler', 'refund'] });

  // Disabling asks first; then the module's routes refuse, and enabling brings them back.
  await api.POST('/v1/rooms', { body: { id: 'lobby', name: 'Lobby' } });
  const listMessages = () =>
    api.GET('/v1/rooms/{roomId}/messages', { params: { path: { roomId: 'lobby' } } }).then(
      () => 'listed',
      (refused: unknown) => refused,
    );
  page.once('dialog', (dialog) => void dialog.dismiss());
  await chat.getByRole('button', { name: 'Disable Chat' }).click();
  await expect(chat.getByText('Enabled', { exact: true })).toBeVisible();
  acceptNextConfirm(page);
  await chat.getByRole('button', { name: 'Disable Chat' }).click();
  await expect(chat.getByText('Disabled', { exact: true })).toBeVisible();
  expect(await listMessages()).toMatchObject({ status: 403, error: 'module_disabled' });
  await chat.getByRole('button', { name: 'Enable Chat' }).click();
  await expect(chat.getByText('Enabled', { exact: true })).toBeVisible();
  expect(await listMessages()).toBe('listed');
});

test('API keys: created with scopes and expiry, its secret shown once, works, then revoked and refused', async ({
  consoleApp,
}) => {
  const { page } = consoleApp;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await consoleApp.goto('api-keys');
  await expect(page.getByRole('heading', { level: 1, name: 'API keys' })).toBeVisible();
  await expect(page.getByRole('checkbox', { name: /^rooms:read/ })).toBeVisible();
  await consoleApp.expectAccessible();

  // No scope: the service's refusal is shown beside the scopes.
  await page.getByLabel('Name').fill('nightly export');
  await page.getByRole('button', { name: 'Create API key' }).click();
  await expect(page.locator('#key-scopes-error')).toContainText('must NOT have fewer than 1 items');

  await page.getByRole('checkbox', { name: /^rooms:read/ }).check();
  await page.getByLabel('Expires (optional)').fill('2099-06-30T12:00');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByLabel('Secret');
  await expect(secret).toHaveValue(/^svc_/);
  const key = await secret.inputValue();
  await page.getByRole('button', { name: 'Copy secret' }).click();
  await expect(page.getByText('Copied to the clipboard.')).toBeVisible();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
  await consoleApp.expectAccessible();

  // The key works for its scope, and only for it.
  expect((await withKey(consoleApp.baseUrl, key, '/v1/rooms')).status).toBe(200);
  expect(await withKey(consoleApp.baseUrl, key, '/v1/events')).toEqual({
    status: 403,
    error: 'insufficient_scope',
  });

  const row = page.getByRole('row').filter({ hasText: 'nightly export' });
  await expect(row.getByRole('cell', { name: 'rooms:read' })).toBeVisible();
  await expect(row.getByRole('cell', { name: 'Active' })).toBeVisible();
  const expiry = await page.evaluate(() => new Date('2099-06-30T12:00').toISOString());
  await expect(row.locator(`time[datetime="${expiry}"]`)).toBeVisible();

  // Once stored, the secret is gone, and leaving the page and coming back does not bring it back.
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await expect(page.getByLabel('Secret')).toHaveCount(0);
  await consoleApp.goto('');
  await consoleApp.goto('api-keys');
  await expect(page.getByRole('row').filter({ hasText: 'nightly export' })).toBeVisible();
  await expect(page.getByText(key)).toHaveCount(0);
  await expect(page.getByLabel('Secret')).toHaveCount(0);

  acceptNextConfirm(page);
  await page.getByRole('button', { name: 'Revoke nightly export' }).click();
  await expect(
    page.getByRole('row').filter({ hasText: 'nightly export' }).getByRole('cell', { name: 'Revoked' }),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revoke nightly export' })).toHaveCount(0);
  await expect
    .poll(async () => (await withKey(consoleApp.baseUrl, key, '/v1/rooms')).error)
    .toBe('invalid_api_key');
});

/** A call to the public surface with a product key from a browser origin: the status and the error code. */
async function fromOrigin(baseUrl: string, productKey: string, origin: string) {
  const res = await fetch(`${baseUrl}/api/public/auctions`, {
    headers: { 'x-svc-product-key': productKey, origin },
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

test('product keys: created for an origin, origins edited (a bad one refused by line), revoked', async ({
  consoleApp,
}) => {
  const { page, baseUrl } = consoleApp;
  await consoleApp.goto('product-keys');
  await expect(page.getByText('No product keys yet.')).toBeVisible();
  await consoleApp.expectAccessible();

  const create = page.getByRole('form', { name: 'New product key' });
  await create.getByLabel('Name').fill('web shop');
  await create.getByLabel('Allowed origins').fill('https://shop.example.com\nnot an origin');
  await create.getByRole('button', { name: 'Create product key' }).click();
  await expect(create.locator('#pk-new-origins-error')).toHaveText('is not in the expected form (line 2)');

  await create.getByLabel('Allowed origins').fill('https://shop.example.com');
  await create.getByRole('button', { name: 'Create product key' }).click();
  const row = page.getByRole('row').filter({ hasText: 'web shop' });
  await expect(row.getByRole('cell', { name: 'https://shop.example.com' })).toBeVisible();
  const key = (await row.locator('code').first().textContent()) ?? '';
  expect(key).toMatch(/^pk_/);
  expect((await fromOrigin(baseUrl, key, 'https://shop.example.com')).status).toBe(200);
  expect(await fromOrigin(baseUrl, key, 'https://other.example.com')).toEqual({
    status: 403,
    error: 'forbidden',
  });

  await row.getByRole('button', { name: 'Edit web shop' }).click();
  const edit = page.getByRole('form', { name: 'Edit web shop' });
  await edit.getByLabel('Allowed origins').fill('https://other.example.com');
  await consoleApp.expectAccessible();
  await edit.getByRole('button', { name: 'Save web shop' }).click();
  await expect(row.getByRole('cell', { name: 'https://other.example.com' })).toBeVisible();
  await expect
    .poll(async () => (await fromOrigin(baseUrl, key, 'https://other.example.com')).status)
    .toBe(200);
  expect((await fromOrigin(baseUrl, key, 'https://shop.example.com')).status).toBe(403);

  acceptNextConfirm(page);
  await row.getByRole('button', { name: 'Revoke web shop' }).click();
  await expect(row.getByRole('cell', { name: 'Revoked' })).toBeVisible();
  await expect
    .poll(async () => (await fromOrigin(baseUrl, key, 'https://other.example.com')).status)
    .toBe(401);
});

test('team: invite with a role, the invitee joins, their role changes, they are removed', async ({
  consoleApp,
}) => {
  const { page, baseUrl } = consoleApp;
  const email = `dana-${Date.now()}@example.test`;
  await consoleApp.goto('team');
  await expect(page.getByRole('table', { name: 'Members and invitations' })).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Email').fill('not-an-email');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.locator('#invite-email-error')).toContainText('must match format "email"');

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByText(`Invited ${email} as viewer.`)).toBeVisible();
  const invited = page.getByRole('row').filter({ hasText: email });
  await expect(invited.getByRole('cell', { name: 'Invited' })).toBeVisible();

  // Dana signs in with that verified email: the invitation becomes a viewer membership.
  const dana = await consoleApp.signInAs({ email, name: 'Dana' });
  // Her first call signs her in: the service makes her user and accepts the invitation.
  await fetch(`${baseUrl}/api/auth/user`, { headers: { authorization: `Bearer ${dana}` } });
  const tenantCall = (token: string) =>
    fetch(`${baseUrl}/api/console/tenants/${consoleApp.tenantId}`, {
      headers: { authorization: `Bearer ${token}` },
    }).then(async (res) => ({ status: res.status, role: ((await res.json()) as { role?: string }).role }));
  expect(await tenantCall(dana)).toEqual({ status: 200, role: 'viewer' });
  await consoleApp.goto('');
  await consoleApp.goto('team');
  const member = page.getByRole('row').filter({ hasText: email });
  await expect(member.getByRole('cell', { name: 'Member' })).toBeVisible();
  await consoleApp.expectAccessible();

  await member.getByLabel('Role of Dana').selectOption('developer');
  // The button is disabled while the change is in flight too: the check waits for the PATCH's answer.
  const changed = page.waitForResponse(
    (res) => res.request().method() === 'PATCH' && res.url().includes('/members/'),
  );
  await member.getByRole('button', { name: 'Change role of Dana' }).click();
  expect((await changed).status()).toBe(200);
  await expect(member.getByRole('button', { name: 'Change role of Dana' })).toBeDisabled();
  expect(await tenantCall(dana)).toEqual({ status: 200, role: 'developer' });

  page.once('dialog', (dialog) => void dialog.dismiss());
  await member.getByRole('button', { name: 'Remove Dana' }).click();
  await expect(member).toBeVisible();
  acceptNextConfirm(page);
  await member.getByRole('button', { name: 'Remove Dana' }).click();
  await expect(page.getByRole('row').filter({ hasText: email })).toHaveCount(0);
  expect((await tenantCall(dana)).status).toBe(404);

  // An invitation nobody accepted yet is withdrawn.
  await page.getByLabel('Email').fill('eve@example.test');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const pending = page.getByRole('row').filter({ hasText: 'eve@example.test' });
  await expect(pending.getByRole('cell', { name: 'Invited' })).toBeVisible();
  await expect(pending.getByRole('cell', { name: 'developer' })).toBeVisible();
  acceptNextConfirm(page);
  await pending.getByRole('button', { name: 'Withdraw invitation of eve@example.test' }).click();
  await expect(pending).toHaveCount(0);
});
