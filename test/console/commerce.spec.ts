import type { Page } from '@playwright/test';
import { expect, ownerClient, test } from './fixture.ts';

const customer = (name: string) =>
  ({ type: 'end_user', id: `shop:${name}`, identityProvider: 'shop' }) as const;

/** Accepts the next confirm() the page asks (refunds, deletions ask first). */
function acceptNextDialog(page: Page): void {
  page.once('dialog', (dialog) => void dialog.accept());
}

test('payments: the list shows payments and filters them by status in the query string', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const { data: held } = await api.POST('/v1/payments', {
    body: {
      amount: 1200,
      currency: 'EUR',
      captureMethod: 'manual',
      description: 'Held order',
      customer: customer('ann'),
    },
  });
  await api.POST('/v1/payments/{paymentId}/confirm', {
    params: { path: { paymentId: held.id } },
    body: { paymentMethod: 'pm_card_visa' },
  });
  const { data: open } = await api.POST('/v1/payments', {
    body: { amount: 800, currency: 'EUR', description: 'Open order' },
  });

  await consoleApp.goto('payments');
  await expect(page.getByRole('link', { name: held.id })).toBeVisible();
  await expect(page.getByRole('link', { name: open.id })).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Status').selectOption('requires_capture');
  await expect(page.getByRole('link', { name: open.id })).toHaveCount(0);
  await expect(page.getByRole('link', { name: held.id })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('status')).toBe('requires_capture');

  await page.getByLabel('Status').selectOption('canceled');
  await expect(page.getByText('No payments match these filters.')).toBeVisible();

  await page.getByLabel('Status').selectOption('');
  await page.getByLabel('Customer').fill('shop:ann');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByRole('link', { name: open.id })).toHaveCount(0);
  await page.getByRole('link', { name: held.id }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Payment ${held.id}` })).toBeVisible();
});

test('payment: captured in part, refunded in part, with its timeline and ledger transactions', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const { data: created } = await api.POST('/v1/payments', {
    body: {
      amount: 2500,
      currency: 'EUR',
      captureMethod: 'manual',
      customer: customer('bob'),
      seller: 'vinyl-shop',
      description: 'Signed LP',
    },
  });
  const paymentId = created.id;
  await api.POST('/v1/payments/{paymentId}/confirm', {
    params: { path: { paymentId } },
    body: { paymentMethod: 'pm_card_visa' },
  });

  await consoleApp.goto(`payments/${paymentId}`);
  await expect(page.getByText('requires capture').first()).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Amount to capture (EUR)').fill('20.00');
  await page.getByRole('button', { name: 'Capture' }).click();
  const refundAmount = page.getByLabel('Amount to refund (EUR)');
  await expect(refundAmount).toBeVisible();
  const afterCapture = (await api.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })).data;
  expect(afterCapture.status).toBe('succeeded');
  expect(afterCapture.amountCaptured).toBe(2000);

  await refundAmount.fill('5.00');
  await page.getByLabel('Reason').selectOption('requested_by_customer');
  acceptNextDialog(page);
  await page.getByRole('button', { name: 'Refund' }).click();
  const refunds = page.getByRole('table', { name: 'Refunds, oldest first' });
  await expect(refunds.getByRole('row')).toHaveCount(2);
  await expect(refunds.getByText('succeeded')).toBeVisible();
  const afterRefund = (await api.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })).data;
  expect(afterRefund.amountRefunded).toBe(500);

  const timeline = page.locator('.commerce-timeline li');
  await expect(timeline).toHaveCount(5);
  await expect(timeline.nth(0)).toContainText('payment.created');
  await expect(timeline.nth(2)).toContainText('payment.succeeded');
  await expect(timeline.nth(4)).toContainText('refund.succeeded');

  const ledger = page.getByRole('table', { name: "The payment's ledger transactions, newest first" });
  await expect(ledger.getByRole('row')).toHaveCount(3);
  await expect(ledger.getByRole('cell', { name: 'capture', exact: true })).toBeVisible();
  await expect(ledger.getByRole('cell', { name: 'refund', exact: true })).toBeVisible();
  await expect(ledger.getByText('seller:vinyl-shop:payable').first()).toBeVisible();
  await consoleApp.expectAccessible();
});

test('ledger: accounts by prefix, an account’s postings, and transactions linked to payments', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const { data: paid } = await api.POST('/v1/payments', {
    body: { amount: 4000, currency: 'EUR', customer: customer('cy'), seller: 'poster-shop' },
  });
  await api.POST('/v1/payments/{paymentId}/confirm', {
    params: { path: { paymentId: paid.id } },
    body: { paymentMethod: 'pm_card_visa' },
  });

  await consoleApp.goto('ledger');
  const accounts = page.getByRole('table', { name: 'Accounts, by name, then currency' });
  await expect(accounts.getByRole('button', { name: 'customer:shop:cy' })).toBeVisible();
  await expect(accounts.getByRole('button', { name: 'seller:poster-shop:payable' })).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Account name starts with').fill('seller:');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(accounts.getByRole('button', { name: 'customer:shop:cy' })).toHaveCount(0);
  expect(new URL(page.url()).searchParams.get('prefix')).toBe('seller:');

  await accounts.getByRole('button', { name: 'seller:poster-shop:payable' }).click();
  const postings = page.getByRole('table', { name: 'Postings of seller:poster-shop:payable, newest first' });
  await expect(postings.getByRole('row')).toHaveCount(2);

  const transactions = page.getByRole('table', { name: 'Transactions, newest first' });
  await transactions.getByRole('link', { name: paid.id }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Payment ${paid.id}` })).toBeVisible();
});

test('analytics: counts over time in the tenant’s time zone, then a chosen one, a breakdown and a funnel, with no CSP error', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const cspErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy/i.test(message.text()))
      cspErrors.push(message.text());
  });
  const person = (name: string) =>
    ({ type: 'end_user', id: `shop:${name}`, identityProvider: 'shop' }) as const;
  // Sign-ups a few minutes ago, purchases after them (a funnel's later step must come later).
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const signedUp = (name: string, plan: string) =>
    ({ event: 'Signed Up', actor: person(name), properties: { plan }, timestamp: at(4) }) as const;
  const purchased = (name: string) =>
    ({ event: 'Purchased', actor: person(name), properties: { plan: 'pro' }, timestamp: at(2) }) as const;
  const ingested = await api.POST('/v1/analytics/events', {
    body: {
      batch: [
        signedUp('ann', 'pro'),
        signedUp('bob', 'free'),
        signedUp('cy', 'pro'),
        purchased('ann'),
        purchased('cy'),
      ],
    },
  });
  expect(ingested.data.accepted).toBe(5);

  // The tenant's time zone (the analytics module's setting) is where the page starts.
  await ownerClient().PUT('/api/console/tenants/{tenantId}/modules/{module}', {
    params: { path: { tenantId: consoleApp.tenantId, module: 'analytics' } },
    body: { enabled: true, config: { timezone: 'Asia/Tokyo' } },
  });
  await consoleApp.goto('analytics');
  const summary = page.getByText(/events by .* people/);
  await expect(summary).toContainText('5 events by 3 people');
  await expect(summary).toContainText('in Asia/Tokyo');
  await expect(page.getByLabel('Time zone')).toHaveValue('Asia/Tokyo');
  await expect(page.locator('.commerce-chart canvas')).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Time zone').selectOption('Pacific/Auckland');
  await expect(summary).toContainText('in Pacific/Auckland');
  expect(new URL(page.url()).searchParams.get('tz')).toBe('Pacific/Auckland');
  await page.getByLabel('Interval').selectOption('hour');
  await page.getByText('The numbers per hour').click();
  const hours = page.getByRole('table', { name: 'Per hour, in Pacific/Auckland' });
  await expect(hours).toBeVisible();
  // Auckland's local hours: the events' hour (or two) is there, counted.
  await expect(hours.getByRole('row', { name: / [1-5] [1-3]$/ }).first()).toBeVisible();

  await page.getByLabel('Events', { exact: true }).fill('Signed Up');
  await page.getByLabel('Break down by property').fill('plan');
  await page.getByRole('button', { name: 'Show' }).click();
  await expect(summary).toContainText('3 events by 3 people');
  const breakdown = page.getByRole('table', { name: 'Events by plan, most first' });
  await expect(breakdown.getByRole('row', { name: 'pro 2 2' })).toBeVisible();
  await expect(breakdown.getByRole('row', { name: 'free 1 1' })).toBeVisible();

  await page.getByLabel('Step 1 event').fill('Signed Up');
  await page.getByLabel('Step 2 event').fill('Purchased');
  await page.getByRole('button', { name: 'Run the funnel' }).click();
  const funnel = page.getByRole('table', { name: 'Funnel: people who reached each step in order' });
  await expect(funnel.getByRole('row', { name: /1\. Signed Up 3/ })).toBeVisible();
  await expect(funnel.getByRole('row', { name: /2\. Purchased 2 .*66\.7 %/ })).toBeVisible();
  await consoleApp.expectAccessible();
  expect(cspErrors).toEqual([]);
});

test('storefront: brand saved, an operator created and edited, its mobile build answered as dev mode', async ({
  consoleApp,
}) => {
  const { page } = consoleApp;
  await consoleApp.goto('storefront');
  await expect(page.getByText('No operators yet.')).toBeVisible();
  await consoleApp.expectAccessible();

  // A bad color is refused, with the message beside its field.
  await page.getByLabel('Name', { exact: true }).first().fill('Night Auctions');
  await page.getByLabel('primary').fill('blue');
  await page.getByRole('button', { name: 'Save brand' }).click();
  await expect(page.locator('#brand-color-primary-error')).toBeVisible();
  await page.getByLabel('primary').fill('#112233');
  await page.getByLabel('Slogan').fill('Bid live');
  await page.getByRole('button', { name: 'Save brand' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Brand saved' })).toBeVisible();

  await page.getByLabel('Allowed origins, one a line').fill('https://shop.example.com');
  await page.getByRole('button', { name: 'Save publishing' }).click();
  await expect(page.getByText('Publishing saved.')).toBeVisible();

  // Saved on the service: the page loaded again (after another one) shows them.
  await consoleApp.goto('payments');
  await expect(page.getByRole('heading', { level: 1, name: 'Payments' })).toBeVisible();
  await consoleApp.goto('storefront');
  await expect(page.getByLabel('Slogan')).toHaveValue('Bid live');
  await expect(page.getByLabel('primary')).toHaveValue('#112233');
  await expect(page.getByLabel('Allowed origins, one a line')).toHaveValue('https://shop.example.com');

  await page.getByLabel('Name', { exact: true }).last().fill('Vintage Vinyl');
  await page.getByLabel('Slug').fill('vintage-vinyl');
  await page.getByRole('button', { name: 'Create operator' }).click();
  await page.getByRole('link', { name: 'Vintage Vinyl' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Operator Vintage Vinyl' })).toBeVisible();
  await expect(page.getByText('No builds yet.')).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('App name').fill('Vinyl');
  await page.getByLabel('Android package').fill('com.vinyl.app');
  await page.getByRole('button', { name: 'Save operator' }).click();
  await expect(page.getByText('Operator saved.')).toBeVisible();

  await page.getByLabel('Platform').selectOption('android');
  await page.getByRole('button', { name: 'Request a build' }).click();
  await expect(page.getByText('Development mode: no build was started.')).toBeVisible();
  await expect(page.getByRole('cell', { name: 'dev mode (not built)' })).toBeVisible();
  await expect(page.getByText(/queued/i)).toHaveCount(0);
  await consoleApp.expectAccessible();

  acceptNextDialog(page);
  await page.getByRole('button', { name: 'Delete Vintage Vinyl' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Storefront' })).toBeVisible();
  await expect(page.getByText('No operators yet.')).toBeVisible();
});
