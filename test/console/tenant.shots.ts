import { expect, test } from './fixture.ts';
import { saveScreenshot } from './screenshots.ts';

test.use({ tenantName: 'Acme Shop' });

test('tenant screenshots: overview, modules with a settings form, API keys with a new secret', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const events = [
    { type: 'app.order.paid', data: { orderId: 'ord_1041', total: 4990 } },
    { type: 'app.order.paid', data: { orderId: 'ord_1042', total: 1250 } },
    { type: 'app.cart.viewed', data: { cartId: 'cart_77' } },
    { type: 'app.signup.completed', data: { plan: 'team' } },
  ];
  for (const body of events) await api.POST('/v1/events', { body });
  await api.POST('/v1/rooms', { body: { id: 'spring-drop', name: 'Spring drop' } });

  await consoleApp.goto('');
  const today = page.getByRole('table', { name: 'Events today by type' });
  // Today's counts may trail the events by a moment: Refresh until they show them.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(today.getByRole('row', { name: 'app.order.paid 2' })).toBeVisible({ timeout: 1000 });
  }).toPass();
  await saveScreenshot(page, 'tenant-overview');

  await consoleApp.goto('modules');
  const chat = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: /^Chat/ }) });
  await chat.getByRole('button', { name: 'Show Chat settings' }).click();
  await expect(page.getByRole('form', { name: 'Chat settings' }).getByLabel('Max length')).toHaveValue(
    '4000',
  );
  await saveScreenshot(page, 'tenant-modules');

  await consoleApp.goto('api-keys');
  await page.getByLabel('Name').fill('nightly export');
  await page.getByRole('checkbox', { name: /^rooms:read/ }).check();
  await page.getByRole('checkbox', { name: /^events:read/ }).check();
  await page.getByLabel('Expires (optional)').fill('2099-06-30T12:00');
  await page.getByRole('button', { name: 'Create API key' }).click();
  await expect(page.getByLabel('Secret')).toHaveValue(/^svc_/);
  await saveScreenshot(page, 'tenant-api-keys');
});
