import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixture.ts';

/**
 * Presses Tab until `target` has the focus, as a keyboard user would reach it, and fails when it never
 * does within `limit` presses (the control is not reachable without a mouse).
 */
async function tabTo(page: Page, target: Locator, options: { backwards?: boolean } = {}): Promise<void> {
  const limit = 80;
  const key = options.backwards === true ? 'Shift+Tab' : 'Tab';
  await expect(target).toBeVisible();
  for (let presses = 0; presses < limit; presses++) {
    if (await target.evaluate((element) => element.matches(':focus'))) return;
    await page.keyboard.press(key);
  }
  throw new Error(`not reachable with Tab in ${limit} presses: ${target.toString()}`);
}

test('keyboard only: the menu, an API key created and revoked, then other pages reached', async ({
  consoleApp,
}) => {
  test.setTimeout(120_000);
  const { page } = consoleApp;
  await consoleApp.goto('');
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();

  // The menu link, followed with Enter: the page's heading takes the focus.
  await tabTo(
    page,
    page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }),
  );
  await page.keyboard.press('Enter');
  const heading = page.getByRole('heading', { level: 1, name: 'API keys' });
  await expect(heading).toBeFocused();

  // The form: typed, a scope ticked with Space, sent with Enter on its button.
  await tabTo(page, page.getByLabel('Name'));
  await page.keyboard.type('keyboard key');
  await tabTo(page, page.getByRole('checkbox', { name: /^rooms:read/ }));
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: /^rooms:read/ })).toBeChecked();
  await tabTo(page, page.getByRole('button', { name: 'Create API key' }));
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Secret')).toHaveValue(/^svc_/);
  await tabTo(page, page.getByRole('button', { name: 'I have stored it' }));
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('Secret')).toHaveCount(0);

  // A destructive action asks first; the answer is given from the keyboard too (the dialog's Enter).
  page.once('dialog', (dialog) => void dialog.accept());
  await tabTo(page, page.getByRole('button', { name: 'Revoke keyboard key' }));
  await page.keyboard.press('Enter');
  await expect(
    page.getByRole('row').filter({ hasText: 'keyboard key' }).getByRole('cell', { name: 'Revoked' }),
  ).toBeVisible();

  // Each area's first page is in the menu (before the page: back from its heading) and opens from the keyboard.
  await consoleApp.goto('');
  for (const [link, title] of [
    ['Webhook endpoints', /webhook/i],
    ['Rooms', 'Rooms'],
    ['Payments', 'Payments'],
    ['Analytics', 'Analytics'],
  ] as const) {
    await tabTo(page, page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }), {
      backwards: true,
    });
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeFocused();
  }
});
