import { createRealtime, type Realtime } from '@svc/client/realtime';
import WebSocket from 'ws';
import { expect, ownerClient, test } from './fixture.ts';

/** Someone the tenant's backend speaks for (chat messages, bids): an Actor object. */
const actor = (name: string) =>
  ({ type: 'end_user', id: `shop:${name}`, identityProvider: 'shop', displayName: name }) as const;

test('rooms: the list filters by metadata and a room is created from the form', async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  await api.POST('/v1/rooms', { body: { id: 'alpha', name: 'Alpha', metadata: { tier: 2 } } });
  await api.POST('/v1/rooms', { body: { id: 'beta', name: 'Beta', metadata: { tier: 1 } } });

  await consoleApp.goto('rooms');
  await expect(page.getByRole('link', { name: 'Alpha' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Beta' })).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Metadata filters').fill('tier=2');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await expect(page.getByRole('link', { name: 'Beta' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Alpha' })).toBeVisible();
  expect(new URL(page.url()).searchParams.get('metadata.tier')).toBe('2');

  await page.getByLabel('Metadata filters').fill('tier=9');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await expect(page.getByText('No room matches these filters.')).toBeVisible();

  await page.getByLabel('Id (optional)').fill('gamma');
  await page.getByLabel('Name').fill('Gamma');
  await page.getByLabel('Metadata', { exact: true }).fill('tier=3, brand=acme');
  await page.getByRole('button', { name: 'Create room' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Gamma' })).toBeVisible();
  const { data: gamma } = await api.GET('/v1/rooms/{roomId}', { params: { path: { roomId: 'gamma' } } });
  expect(gamma.metadata).toEqual({ tier: 3, brand: 'acme' });
});

test('room: members appear and leave, chat arrives live and a message is deleted', async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await api.POST('/v1/rooms', { body: { id: 'stage', name: 'Stage' } });
  await api.POST('/v1/rooms/{roomId}/messages', {
    params: { path: { roomId: 'stage' } },
    body: { text: 'an earlier message', actor: actor('bob') },
  });

  await consoleApp.goto('rooms/stage');
  await expect(page.getByRole('heading', { level: 1, name: 'Stage' })).toBeVisible();
  await expect(page.getByText('Live: changes appear as they happen')).toBeVisible();
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages.getByText('an earlier message')).toBeVisible();
  await expect(page.getByText('Nobody is in the room now.')).toBeVisible();
  await consoleApp.expectAccessible();

  // Ann joins with presence through the SDK, as an app would, with a token her backend minted.
  let ann: Realtime | undefined;
  try {
    ann = createRealtime({
      baseUrl: consoleApp.baseUrl,
      WebSocket,
      getToken: async () => {
        const { data } = await api.POST('/v1/runtime/connect', {
          body: { modules: ['rooms', 'presence', 'chat'], actor: actor('ann') },
        });
        return data.token;
      },
    });
    const room = ann.join('stage', { presence: { status: 'online' } });
    await room.ready();
    const members = page.getByRole('list', { name: 'Members' });
    await expect(members.getByRole('listitem')).toHaveCount(1);
    await expect(members.getByText('shop:ann')).toBeVisible();
    // The console watches without being a member.
    await expect(page.getByRole('heading', { name: 'Here now (1)' })).toBeVisible();

    const sent = await room.send({ text: 'hello from Ann' });
    const item = messages.getByRole('listitem').filter({ hasText: 'hello from Ann' });
    await expect(item).toBeVisible();

    page.once('dialog', (dialog) => void dialog.accept());
    await item.getByRole('button', { name: 'Delete' }).click();
    await expect(messages.getByText('hello from Ann')).toHaveCount(0);
    await expect(messages.getByText('Message deleted')).toBeVisible();
    const { data: history } = await api.GET('/v1/rooms/{roomId}/messages', {
      params: { path: { roomId: 'stage' } },
    });
    expect(history.data.find((m) => m.id === sent.id)?.deletedAt).not.toBeNull();

    room.leave();
    await expect(page.getByText('Nobody is in the room now.')).toBeVisible();
    await expect(page.getByRole('list', { name: 'Members' })).toHaveCount(0);
    // The socket opened under the console's CSP (connect-src 'self'), with nothing logged as an error.
    expect(consoleErrors).toEqual([]);
  } finally {
    ann?.close();
  }
});

test('room: a viewer, who may not mint session tokens, still sees members and chat, polled', async ({
  consoleApp,
}) => {
  const { api, page, tenantId, baseUrl } = consoleApp;
  await api.POST('/v1/rooms', { body: { id: 'quiet' } });
  // Vic is a viewer of the tenant; the page's API calls go out with Vic's token, so the service answers
  // them as it answers a viewer: reads pass, runtime connect is refused (sessions:manage is not a read).
  const email = 'vic@example.test';
  await ownerClient().POST('/api/console/tenants/{tenantId}/members', {
    params: { path: { tenantId } },
    body: { email, role: 'viewer' },
  });
  const vic = await consoleApp.signInAs({ email, name: 'Vic' });
  await fetch(`${baseUrl}/api/auth/user`, { headers: { authorization: `Bearer ${vic}` } });
  await page.route('**/v1/**', (route) =>
    route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${vic}` } }),
  );
  await consoleApp.goto('rooms/quiet');
  await expect(page.getByText('Live: checked every second')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);

  let ann: Realtime | undefined;
  try {
    ann = createRealtime({
      baseUrl: consoleApp.baseUrl,
      WebSocket,
      getToken: async () => {
        const { data } = await api.POST('/v1/runtime/connect', {
          body: { modules: ['presence', 'chat'], actor: actor('ann') },
        });
        return data.token;
      },
    });
    const room = ann.join('quiet', { presence: {} });
    await room.ready();
    await expect(page.getByRole('list', { name: 'Members' }).getByText('shop:ann')).toBeVisible();
    await room.send({ text: 'polled hello' });
    await expect(page.getByRole('list', { name: 'Messages' }).getByText('polled hello')).toBeVisible();
    room.leave();
    await expect(page.getByText('Nobody is in the room now.')).toBeVisible();
  } finally {
    ann?.close();
  }
});

test('auctions: one is created, started and cancelled from the list', async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  await api.POST('/v1/rooms', { body: { id: 'floor' } });

  await consoleApp.goto('auctions');
  await expect(page.getByText('No auctions yet.')).toBeVisible();
  await consoleApp.expectAccessible();

  await page.getByLabel('Room').fill('floor');
  await page.getByLabel('Item').fill('Signed LP');
  await page.getByLabel('Starting price').fill('25');
  await page.getByLabel('Bid increment (optional)').fill('1.50');
  await page.getByLabel('Duration in minutes').fill('10');
  await page.getByRole('button', { name: 'Create auction' }).click();
  await expect(page.getByText('Created "Signed LP" as a draft.')).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: 'Signed LP' });
  await expect(row.getByText('draft', { exact: true })).toBeVisible();

  await row.getByRole('button', { name: 'Start Signed LP' }).click();
  await expect(row.getByText('live', { exact: true })).toBeVisible();
  const { data: listed } = await api.GET('/v1/auctions', { params: { query: { roomId: 'floor' } } });
  expect(listed.data).toHaveLength(1);
  expect(listed.data[0]).toMatchObject({
    status: 'live',
    currency: 'EUR',
    startingPrice: 2500,
    durationSeconds: 600,
    increments: [{ from: 0, increment: 150 }],
  });

  // With a start time it is scheduled too: the service starts it then.
  await page.getByLabel('Item').fill('Poster');
  await page.getByLabel('Starting price').fill('5');
  await page.getByLabel('Starts at (optional)').fill('2030-01-01T18:00');
  await page.getByRole('button', { name: 'Create auction' }).click();
  await expect(page.getByText('Created "Poster" and scheduled it.')).toBeVisible();
  const scheduled = page.getByRole('row').filter({ hasText: 'Poster' });
  await expect(scheduled.getByText('scheduled', { exact: true })).toBeVisible();
  const { data: poster } = await api.GET('/v1/auctions', { params: { query: { status: 'scheduled' } } });
  expect(poster.data.map((a) => [a.title, new Date(a.startsAt ?? '').getFullYear()])).toEqual([
    ['Poster', 2030],
  ]);

  await page.getByLabel('Status').selectOption('draft');
  await expect(page.getByText('No draft auctions.')).toBeVisible();
  expect(new URL(page.url()).searchParams.get('status')).toBe('draft');
  await page.getByLabel('Status').selectOption('live');
  await expect(row).toBeVisible();

  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Cancel auction' }).click();
  await expect(page.getByText('No live auctions.')).toBeVisible();
  const { data: cancelled } = await api.GET('/v1/auctions/{auctionId}', {
    params: { path: { auctionId: listed.data[0]?.id ?? '' } },
  });
  expect(cancelled.status).toBe('cancelled');
});

test('auction: its state and bids update as bids arrive', async ({ consoleApp }) => {
  const { api, page } = consoleApp;
  await api.POST('/v1/rooms', { body: { id: 'vinyl' } });
  const { data: created } = await api.POST('/v1/auctions', {
    body: { roomId: 'vinyl', title: 'Poster', currency: 'EUR', startingPrice: 500, durationSeconds: 600 },
  });
  await api.POST('/v1/auctions/{auctionId}/start', { params: { path: { auctionId: created.id } } });
  const auctionId = created.id;

  await consoleApp.goto(`auctions/${auctionId}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Poster' })).toBeVisible();
  await expect(page.getByText('No bids yet.')).toBeVisible();
  await expect(page.getByText('Live: changes appear as they happen')).toBeVisible();
  await consoleApp.expectAccessible();

  const bid = (name: string, amount: number) =>
    api.POST('/v1/auctions/{auctionId}/bids', {
      params: { path: { auctionId } },
      body: { amount, actor: actor(name) },
    });
  await bid('ann', 500);
  const bids = page.getByRole('table', { name: /bids, newest first/ });
  await expect(bids.getByRole('row').filter({ hasText: 'shop:ann' })).toBeVisible();
  await bid('bob', 800);
  await expect(bids.getByRole('row').filter({ hasText: 'shop:bob' })).toBeVisible();
  await expect(bids.getByRole('row')).toHaveCount(3); // the header and two bids
  await expect(page.getByText('€8.00').first()).toBeVisible();

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Cancel auction' }).click();
  await expect(page.getByText('cancelled', { exact: true })).toBeVisible();
});
