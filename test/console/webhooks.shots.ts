import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixture.ts';
import { saveScreenshot } from './screenshots.ts';

/** A receiver that fails the first room.created it gets and accepts the rest, so that delivery shows a retry. */
async function startReceiver() {
  let failed = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const fail = !failed && Buffer.concat(chunks).toString('utf8').includes('room.created');
      if (fail) failed = true;
      const [status, body] = fail ? [503, 'busy, try later'] : [200, 'ok'];
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/svc`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test.use({ tenantName: 'Acme Shop' });

test('webhooks screenshots: endpoints, an endpoint with its delivery log, a delivery, events explorer', async ({
  consoleApp,
}) => {
  const { api, page } = consoleApp;
  const receiver = await startReceiver();
  try {
    const { data: endpoint } = await api.POST('/v1/webhooks', {
      body: {
        url: receiver.url,
        secret: 'docs-screenshot-secret-0001',
        description: 'Order service',
        eventTypes: ['room.*', 'app.*'],
      },
    });
    await api.POST('/v1/rooms', { body: { id: 'spring-drop', name: 'Spring drop' } });
    await api.POST('/v1/events', { body: { type: 'app.order.paid', data: { orderId: 'ord_1041' } } });
    await api.POST('/v1/events', { body: { type: 'app.cart.viewed', data: { cartId: 'cart_77' } } });

    await consoleApp.goto('webhooks');
    await expect(page.getByRole('link', { name: receiver.url })).toBeVisible();
    await saveScreenshot(page, 'webhooks-endpoints');

    await consoleApp.goto(`webhooks/${endpoint.id}`);
    const log = page.getByRole('table', { name: 'Deliveries, newest first' });
    await expect(log.getByRole('row').filter({ hasText: 'delivered' })).toHaveCount(3);
    await saveScreenshot(page, 'webhooks-endpoint');

    // The room's delivery: a 503 first, then delivered on the retry.
    await log.getByRole('row').filter({ hasText: 'room.created' }).getByRole('link').click();
    const attempts = page.getByRole('table', { name: 'Attempts, oldest first' });
    await expect(attempts.getByRole('row')).toHaveCount(3);
    await saveScreenshot(page, 'webhooks-delivery');

    await consoleApp.goto('events');
    await expect(page.getByText('Live: new events appear at the top as they happen.')).toBeVisible();
    await expect(page.getByRole('cell', { name: 'app.cart.viewed' })).toBeVisible();
    await saveScreenshot(page, 'webhooks-events');
  } finally {
    await receiver.close();
  }
});
