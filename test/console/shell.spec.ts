import { expect, test } from './fixture.ts';

test('shell: smoke', async ({ consoleApp }) => {
  await expect(consoleApp.page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await consoleApp.goto('nowhere');
  await expect(consoleApp.page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await consoleApp.page.reload();
  await expect(consoleApp.page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await consoleApp.expectAccessible();
});
