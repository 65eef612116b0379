import { createRealtime, type Realtime } from '@svc/client/realtime';
import WebSocket from 'ws';
import { expect, test } from './fixture.ts';
import { saveScreenshot } from './screenshots.ts';

/** Someone the tenant's backend speaks for (chat messages, bids). */
const actor = (name: string) =>
  ({ type: 'end_user', id: `shop:${name}`, identityProvider: 'shop', displayName: name }) as const;

test.use({ tenantName: 'Acme Live' });

test('live screenshots: rooms, a room with a member and chat, auctions, an auction with bids', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  await api.POST('/v1/rooms', {
    body: { id: 'spring-drop', name: 'Spring drop', metadata: { brand: 'acme', tier: 2 } },
  });
  await api.POST('/v1/rooms', { body: { id: 'vinyl-night', name: 'Vinyl night', metadata: { tier: 1 } } });
  await api.POST('/v1/rooms/{roomId}/messages', {
    params: { path: { roomId: 'spring-drop' } },
    body: { text: 'Doors open at 8, first lot at 8:15.', actor: actor('host') },
  });
  const { data: poster } = await api.POST('/v1/auctions', {
    body: {
      roomId: 'vinyl-night',
      title: 'Signed tour poster',
      currency: 'EUR',
      startingPrice: 2500,
      durationSeconds: 1800,
    },
  });
  await api.POST('/v1/auctions', {
    body: {
      roomId: 'vinyl-night',
      title: 'First pressing LP',
      currency: 'EUR',
      startingPrice: 4000,
      durationSeconds: 900,
    },
  });
  await api.POST('/v1/auctions/{auctionId}/start', { params: { path: { auctionId: poster.id } } });
  for (const [name, amount] of [
    ['ann', 2500],
    ['bob', 3000],
    ['ann', 3500],
  ] as const) {
    await api.POST('/v1/auctions/{auctionId}/bids', {
      params: { path: { auctionId: poster.id } },
      body: { amount, actor: actor(name) },
    });
  }

  await consoleApp.goto('rooms');
  await expect(page.getByRole('link', { name: 'Spring drop' })).toBeVisible();
  await saveScreenshot(page, 'live-rooms');

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
    const room = ann.join('spring-drop', { presence: { status: 'online' } });
    await room.ready();
    await room.send({ text: 'Hi! Is the green jacket still in the drop?' });
    await consoleApp.goto('rooms/spring-drop');
    await expect(page.getByRole('heading', { name: 'Here now (1)' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Messages' }).getByText('green jacket')).toBeVisible();
    await saveScreenshot(page, 'live-room');
  } finally {
    ann?.close();
  }

  await consoleApp.goto('auctions');
  await expect(page.getByText('First pressing LP')).toBeVisible();
  await saveScreenshot(page, 'live-auctions');

  await consoleApp.goto(`auctions/${poster.id}`);
  const bids = page.getByRole('table', { name: /bids, newest first/ });
  await expect(bids.getByRole('row')).toHaveCount(4); // the header and three bids
  await saveScreenshot(page, 'live-auction');
});
