import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import type { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { eventually } from '../../../test/support/eventually.ts';
import { createSyncProvider } from '../src/sync.ts';
import { TcpProxy } from './support/realtime-proxy.ts';
import { type RealtimeService, startService } from './support/realtime-service.ts';

/**
 * `@svc/client/sync` against the real service: two stock providers built by the helper converge on a
 * document, and after their sockets are cut each reconnects with a fresh token and the edits made
 * meanwhile on both sides meet.
 */

let svc: RealtimeService;
let proxy: TcpProxy;
const providers: WebsocketProvider[] = [];

before(async () => {
  svc = await startService();
  proxy = await TcpProxy.start([svc.port]);
});
after(async () => {
  for (const provider of providers) {
    provider.destroy();
    provider.doc.destroy();
  }
  await proxy.close();
  await svc.close();
});

function provider(roomId: string, actor: string, docName?: string) {
  let tokens = 0;
  const p = createSyncProvider({
    baseUrl: proxy.url,
    getToken: () => {
      tokens += 1;
      return svc.token(actor, ['sync']);
    },
    roomId,
    ...(docName === undefined ? {} : { docName }),
    doc: new Y.Doc(),
    WebSocket,
    // Two providers in one process would otherwise talk over a BroadcastChannel, not the service.
    provider: { disableBc: true, maxBackoffTime: 500 },
  });
  providers.push(p);
  return { p, text: () => p.doc.getText('t').toString(), tokens: () => tokens };
}

const synced = (p: WebsocketProvider) =>
  eventually('the provider to sync', () => p.synced || undefined, { timeoutMs: 30_000 });

describe('Yjs through @svc/client/sync', () => {
  test('two providers from the helper converge; after a cut each reconnects with a fresh token and both offline edits meet', async () => {
    const roomId = await svc.createRoom();
    const a = provider(roomId, 'test:yjs-a', 'notes');
    const b = provider(roomId, 'test:yjs-b', 'notes');
    await Promise.all([synced(a.p), synced(b.p)]);
    a.p.doc.getText('t').insert(0, 'hello');
    await eventually('b to see a', () => b.text() === 'hello' || undefined);

    const tokensBefore = [a.tokens(), b.tokens()];
    proxy.cut();
    await eventually('both to notice', () => (!a.p.wsconnected && !b.p.wsconnected) || undefined);
    a.p.doc.getText('t').insert(5, ' from a');
    b.p.doc.getText('t').insert(0, 'b says: ');
    proxy.restore();
    await Promise.all([synced(a.p), synced(b.p)]);
    await eventually(
      'both edits on both sides',
      () =>
        (a.text() === b.text() && a.text().includes(' from a') && a.text().includes('b says: ')) || undefined,
      { timeoutMs: 30_000 },
    );
    assert.equal(a.text(), 'b says: hello from a');
    assert.ok(
      a.tokens() > (tokensBefore[0] ?? 0) && b.tokens() > (tokensBefore[1] ?? 0),
      'a fresh token per reconnect',
    );

    const late = provider(roomId, 'test:yjs-late', 'notes');
    await synced(late.p);
    await eventually(
      'a new provider to load the stored document',
      () => late.text() === a.text() || undefined,
    );
  });

  test("the room's default document and a named one are separate", async () => {
    const roomId = await svc.createRoom();
    const plain = provider(roomId, 'test:yjs-default');
    const named = provider(roomId, 'test:yjs-named', 'other');
    await Promise.all([synced(plain.p), synced(named.p)]);
    plain.p.doc.getText('t').insert(0, 'default doc');
    const reader = provider(roomId, 'test:yjs-reader');
    await synced(reader.p);
    await eventually('the default document', () => reader.text() === 'default doc' || undefined);
    assert.equal(named.text(), '');
  });
});
