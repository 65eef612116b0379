import { expect, test } from './fixture.ts';
import { saveScreenshot } from './screenshots.ts';

const person = (name: string) =>
  ({ type: 'end_user', id: `shop:${name}`, identityProvider: 'shop' }) as const;

test.use({ tenantName: 'Acme Shop' });

test('commerce screenshots: payments, a payment, the ledger, analytics, storefront', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const pay = async (body: {
    amount: number;
    description: string;
    customer: string;
    seller: string;
    captureMethod?: 'manual';
  }) => {
    const { data } = await api.POST('/v1/payments', {
      body: { ...body, currency: 'EUR', customer: person(body.customer) },
    });
    await api.POST('/v1/payments/{paymentId}/confirm', {
      params: { path: { paymentId: data.id } },
      body: { paymentMethod: 'pm_card_visa' },
    });
    return data.id;
  };
  await pay({ amount: 4000, description: 'Tour poster', customer: 'cy', seller: 'poster-shop' });
  await pay({
    amount: 1200,
    description: 'Held order',
    customer: 'ann',
    seller: 'vinyl-shop',
    captureMethod: 'manual',
  });
  const lp = await pay({
    amount: 2500,
    description: 'Signed LP',
    customer: 'bob',
    seller: 'vinyl-shop',
    captureMethod: 'manual',
  });
  await api.POST('/v1/payments/{paymentId}/capture', {
    params: { path: { paymentId: lp } },
    body: { amountToCapture: 2000 },
  });
  await api.POST('/v1/payments/{paymentId}/refunds', {
    params: { path: { paymentId: lp } },
    body: { amount: 500, reason: 'requested_by_customer' },
  });
  await api.POST('/v1/payments', { body: { amount: 800, currency: 'EUR', description: 'Open order' } });

  await consoleApp.goto('payments');
  await expect(page.getByRole('link', { name: lp })).toBeVisible();
  await saveScreenshot(page, 'commerce-payments');

  await consoleApp.goto(`payments/${lp}`);
  await expect(page.locator('.commerce-timeline li')).toHaveCount(5);
  await saveScreenshot(page, 'commerce-payment');
  // Below its summary and actions: the timeline and the payment's ledger transactions.
  await page.getByRole('heading', { name: 'Timeline' }).evaluate((heading) => heading.scrollIntoView());
  await saveScreenshot(page, 'commerce-payment-timeline');

  await consoleApp.goto('ledger');
  const accounts = page.getByRole('table', { name: 'Accounts, by name, then currency' });
  await accounts.getByRole('button', { name: 'seller:vinyl-shop:payable' }).click();
  await expect(
    page.getByRole('table', { name: 'Postings of seller:vinyl-shop:payable, newest first' }),
  ).toBeVisible();
  await saveScreenshot(page, 'commerce-ledger');

  // A week of sign-ups, some followed by a purchase an hour later: more each day.
  const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
  const batch = [];
  for (let day = 5; day >= 0; day--) {
    for (let n = 0; n < 8 - day; n++) {
      const who = person(`d${day}n${n}`);
      const hoursAgo = day * 24 + n * 0.25 + 1.5;
      const plan = n % 3 === 0 ? 'pro' : 'free';
      batch.push({ event: 'Signed Up', actor: who, properties: { plan }, timestamp: at(hoursAgo) });
      if (n % 2 === 0)
        batch.push({ event: 'Purchased', actor: who, properties: { plan }, timestamp: at(hoursAgo - 1) });
    }
  }
  const { data: ingested } = await api.POST('/v1/analytics/events', { body: { batch } });
  expect(ingested.accepted).toBe(batch.length);
  await consoleApp.goto('analytics');
  await expect(page.getByText(/events by .* people/)).toContainText(`${batch.length} events by 33 people`);
  await expect(page.locator('.commerce-chart canvas')).toBeVisible();
  await saveScreenshot(page, 'commerce-analytics');

  await consoleApp.goto('storefront');
  await page.getByLabel('Name', { exact: true }).first().fill('Night Auctions');
  await page.getByLabel('primary').fill('#112233');
  await page.getByLabel('Slogan').fill('Bid live');
  await page.getByRole('button', { name: 'Save brand' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Brand saved' })).toBeVisible();
  await page.getByLabel('Allowed origins, one a line').fill('https://shop.example.com');
  await page.getByRole('button', { name: 'Save publishing' }).click();
  await expect(page.getByText('Publishing saved.')).toBeVisible();
  for (const [name, slug] of [
    ['Vintage Vinyl', 'vintage-vinyl'],
    ['Poster Barn', 'poster-barn'],
  ] as const) {
    await page.getByLabel('Name', { exact: true }).last().fill(name);
    await page.getByLabel('Slug').fill(slug);
    await page.getByRole('button', { name: 'Create operator' }).click();
    await expect(page.getByRole('link', { name })).toBeVisible();
  }
  await page.getByRole('heading', { name: 'Storefront', level: 1 }).evaluate((h) => h.scrollIntoView());
  await saveScreenshot(page, 'commerce-storefront');
  await page.getByRole('heading', { name: 'Operators' }).evaluate((h) => h.scrollIntoView());
  await saveScreenshot(page, 'commerce-storefront-operators');
});
