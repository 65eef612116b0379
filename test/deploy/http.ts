// HTTP helpers of the rolling-restart run (rolling-restart.deploy.ts): JSON calls, the webhook receiver, a
// room's message ids.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as T };
}

/** A webhook receiver: the message ids of every `chat.message.created` it got, and every delivery id. */
export async function startReceiver(): Promise<{
  url: string;
  messageIds: Set<string>;
  deliveries: number;
  close(): void;
}> {
  const state = { messageIds: new Set<string>(), deliveries: 0 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { message?: { id: string } };
      };
      state.deliveries += 1;
      if (body.type === 'chat.message.created' && body.data.message !== undefined) {
        state.messageIds.add(body.data.message.id);
      }
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    messageIds: state.messageIds,
    get deliveries() {
      return state.deliveries;
    },
    close: () => server.close(),
  };
}

/** Every message id of a room, read forward through the API. */
export async function roomMessageIds(base: string, apiKey: string, roomId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let after = 0;
  for (;;) {
    const page = await json<{ data: { id: string; seq: number }[] }>(
      `${base}/v1/rooms/${roomId}/messages?after=${after}&limit=100`,
      { headers: { 'x-api-key': apiKey } },
    );
    assert.equal(page.status, 200);
    for (const message of page.body.data) ids.add(message.id);
    const last = page.body.data.at(-1);
    if (last === undefined || page.body.data.length < 100) return ids;
    after = last.seq;
  }
}
