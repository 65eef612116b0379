import { expect, navigateInPlace, serviceUrl, test } from './fixture.ts';
import { saveScreenshot } from './screenshots.ts';

test.use({ tenantName: 'Acme Shop' });

test('shell screenshots: sign-in, a tenant, a new tenant', async ({ browser, consoleApp }) => {
  const { page } = consoleApp;
  await expect(page.locator('.loading')).toHaveCount(0);
  await saveScreenshot(page, 'shell-tenant');
  await navigateInPlace(page, '/console/new-tenant');
  await expect(page.getByRole('heading', { level: 1, name: 'New tenant' })).toBeVisible();
  await saveScreenshot(page, 'shell-new-tenant');

  // Signed out: a fresh browser context meets the provider's one-button page.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const signedOut = await context.newPage();
    await signedOut.goto(`${serviceUrl()}/console/`);
    await expect(signedOut.getByRole('button', { name: /Sign in as the demo owner/ })).toBeVisible();
    await saveScreenshot(signedOut, 'shell-sign-in');
  } finally {
    await context.close();
  }
});
