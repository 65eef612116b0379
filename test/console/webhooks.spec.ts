import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { expect, test } from './fixture.ts';

/** One request a receiver got: its headers and its exact body. */
interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 whose answers the test decides (by request number, from 1). */
async function startReceiver(answer: (n: number) => { status: number; body: string }) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, body } = answer(received.length);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/svc`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Accepts the next confirm() the page shows (ConfirmButton asks before a destructive action). */
function acceptNextDialog(page: Page) {
  page.once('dialog', (dialog) => void dialog.accept());
}

test('webhook endpoints: add one with catalog event types and a secret shown once, edit, rotate, disable, delete', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
  try {
    await consoleApp.goto('webhooks');
    await expect(page.getByText('No webhook endpoints yet.')).toBeVisible();
    await consoleApp.expectAccessible();

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Only the types checked below').check();
    await page.getByRole('checkbox', { name: 'room.created' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(page.getByRole('link', { name: receiver.url })).toBeVisible();
    await consoleApp.expectAccessible();
    const { data: listed } = await api.GET('/v1/webhooks');
    expect(listed.data.map((e) => [e.url, e.eventTypes])).toEqual([[receiver.url, ['room.created']]]);

    // The secret shown is the one that signs: a room.created arrives signed with it.
    await api.POST('/v1/rooms', { body: { id: 'signed-room' } });
    await expect.poll(() => receiver.received.length).toBe(1);
    const [first] = receiver.received;
    const expected = `sha256=${createHmac('sha256', secret)
      .update(first?.body ?? '')
      .digest('hex')}`;
    expect(first?.headers['x-svc-signature']).toBe(expected);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect(page.getByLabel('Signing secret')).toHaveCount(0);

    await page.getByRole('link', { name: receiver.url }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Endpoint ${receiver.url}` })).toBeVisible();
    await page.getByRole('button', { name: 'Edit event types' }).click();
    await page.getByRole('checkbox', { name: 'room.deleted' }).check();
    await page.getByRole('button', { name: 'Save event types' }).click();
    await expect(page.getByText('Event types: room.created, room.deleted')).toBeVisible();

    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = await page.getByLabel('Signing secret').inputValue();
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(secret);
    await expect(page.getByText('the previous secret also signs until')).toBeVisible();

    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await expect(page.getByText('Status: Disabled')).toBeVisible();
    const { data: disabled } = await api.GET('/v1/webhooks/{webhookId}', {
      params: { path: { webhookId: listed.data[0]?.id ?? '' } },
    });
    expect([disabled.enabled, disabled.eventTypes]).toEqual([false, ['room.created', 'room.deleted']]);
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await expect(page.getByText('Status: Enabled')).toBeVisible();

    acceptNextDialog(page);
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Webhook endpoints' })).toBeVisible();
    await expect(page.getByText('No webhook endpoints yet.')).toBeVisible();
    expect((await api.GET('/v1/webhooks')).data.data).toEqual([]);
  } finally {
    await receiver.close();
  }
});

test('webhook endpoint: room.created arrives in the log as delivered after a 500, its attempts show request and response, resend adds one', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const receiver = await startReceiver((n) =>
    n === 1 ? { status: 500, body: 'receiver down' } : { status: 200, body: `thanks #${n}` },
  );
  try {
    const { data: endpoint } = await api.POST('/v1/webhooks', {
      body: { url: receiver.url, secret: 'console-test-secret-0001', eventTypes: ['room.*'] },
    });
    await consoleApp.goto(`webhooks/${endpoint.id}`);
    await expect(page.getByText('No deliveries yet.')).toBeVisible();
    await consoleApp.expectAccessible();

    await api.POST('/v1/rooms', { body: { id: 'hooked-room' } });
    const log = page.getByRole('table', { name: 'Deliveries, newest first' });
    const row = log.getByRole('row').filter({ hasText: 'room.created' });
    // The first attempt gets a 500, the retry a 200: the log refreshes itself until it shows delivered.
    await expect(row.getByText('delivered')).toBeVisible();
    await expect(row.getByRole('cell', { name: 'HTTP 200' })).toBeVisible();

    await page.getByLabel('Status').selectOption('dead_lettered');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page.getByText('No delivery matches these filters.')).toBeVisible();
    expect(new URL(page.url()).searchParams.get('state')).toBe('dead_lettered');
    await page.getByLabel('Status').selectOption('delivered');
    await page.getByLabel('Event type').fill('room.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(row).toHaveCount(1);
    await consoleApp.expectAccessible();

    await row.getByRole('link').click();
    await expect(page.getByRole('heading', { level: 1, name: /^Delivery whd_/ })).toBeVisible();
    const attempts = page.getByRole('table', { name: 'Attempts, oldest first' });
    await expect(attempts.getByRole('row')).toHaveCount(3); // the header and two attempts
    await expect(attempts.getByRole('row').nth(1)).toContainText('500');
    await expect(attempts.getByRole('row').nth(1)).toContainText('receiver down');
    await expect(attempts.getByRole('row').nth(2)).toContainText('thanks #2');
    const headers = page.getByRole('table', { name: 'Request headers' });
    const deliveryId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    await expect(headers.getByRole('row').filter({ hasText: 'webhook-id' })).toContainText(deliveryId);
    await expect(headers.getByRole('row').filter({ hasText: 'x-svc-signature' })).toContainText(
      '(set per attempt)',
    );
    await expect(page.getByText('"roomId": "hooked-room"')).toBeVisible();
    await consoleApp.expectAccessible();

    await page.getByRole('button', { name: 'Resend' }).click();
    await expect(attempts.getByRole('row')).toHaveCount(4);
    await expect(attempts.getByRole('row').nth(3)).toContainText('thanks #3');
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
      deliveryId,
      deliveryId,
      deliveryId,
    ]);
  } finally {
    await receiver.close();
  }
});

test('webhook endpoint: dead-lettered deliveries since a time are replayed once the receiver is back', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  let up = false;
  const receiver = await startReceiver(() =>
    up ? { status: 204, body: '' } : { status: 503, body: 'maintenance' },
  );
  try {
    const { data: endpoint } = await api.POST('/v1/webhooks', {
      body: { url: receiver.url, secret: 'console-test-secret-0002', description: 'Replay target' },
    });
    await api.POST('/v1/rooms', { body: { id: 'lost-room' } });
    await consoleApp.goto(`webhooks/${endpoint.id}`);
    await expect(page.getByText('Description: Replay target')).toBeVisible();
    const row = page
      .getByRole('table', { name: 'Deliveries, newest first' })
      .getByRole('row')
      .filter({ hasText: 'room.created' });
    // Every attempt of the (short, in these tests) retry schedule gets a 503: the delivery gives up.
    await expect(row.getByText('dead-lettered')).toBeVisible();
    await expect(row.getByRole('cell', { name: 'HTTP 503' })).toBeVisible();
    await consoleApp.expectAccessible();

    up = true;
    await page.getByRole('button', { name: 'Replay dead-lettered' }).click();
    await expect(page.getByText('Queued 1 delivery to be sent again.')).toBeVisible();
    await expect(row.getByText('delivered')).toBeVisible();
    await expect(row.getByRole('cell', { name: 'HTTP 204' })).toBeVisible();
    await page.getByRole('button', { name: 'Replay dead-lettered' }).click();
    await expect(
      page.getByText('Nothing to replay: no dead-lettered delivery since that time.'),
    ).toBeVisible();
    expect(receiver.received.at(-1)?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
  } finally {
    await receiver.close();
  }
});

test('events: filters by type and the live tail shows a new event without reload', async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  const { data: earlier } = await api.POST('/v1/events', { body: { type: 'app.earlier', data: { n: 1 } } });
  await consoleApp.goto('events');
  await expect(page.getByText(earlier.id)).toBeVisible();
  await expect(page.getByText('Live: new events appear at the top as they happen.')).toBeVisible();
  await consoleApp.expectAccessible();

  const { data: live } = await api.POST('/v1/events', { body: { type: 'app.live', data: { n: 2 } } });
  await expect(page.getByText(live.id)).toBeVisible();

  // Who caused it links to that actor's events (the seeding API key caused both).
  const actorId = (live.trace.actor as { id?: string } | undefined)?.id ?? '';
  expect(actorId).toMatch(/^key_/);
  await page.getByRole('row').filter({ hasText: live.id }).getByRole('link', { name: actorId }).click();
  await expect(page.getByLabel('Caused by')).toHaveValue(actorId);
  expect(new URL(page.url()).searchParams.get('actor')).toBe(actorId);
  await expect(page.getByText(earlier.id)).toBeVisible();
  await expect(page.getByText(live.id)).toBeVisible();

  await page.getByLabel('Type', { exact: true }).fill('app.earlier');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText(live.id)).toHaveCount(0);
  await expect(page.getByText(earlier.id)).toBeVisible();
  expect(new URL(page.url()).searchParams.get('type')).toBe('app.earlier');
  // With a type filter the tail follows that type only.
  const { data: again } = await api.POST('/v1/events', { body: { type: 'app.earlier', data: { n: 3 } } });
  await api.POST('/v1/events', { body: { type: 'app.live', data: { n: 4 } } });
  await expect(page.getByText(again.id)).toBeVisible();
  await expect(page.getByRole('cell', { name: 'app.live' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Pause live tail' }).click();
  await expect(page.getByText('Live tail paused.')).toBeVisible();
  await consoleApp.expectAccessible();
});
