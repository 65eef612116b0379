import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as encoding from 'lib0/encoding';
import type { WebSocket } from 'ws';
import { createApiKey, createTestTenant } from '../../../../test/factories.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { DEFAULT_SYNC_LIMITS, SYNC_CLOSE } from '../limits.ts';
import { documentData } from './rest.ts';
import { syncSuite } from './suites.ts';
import { closeCode, socketUrl, synced, syncToken, tryUpgrade, upgradeOutcome } from './support.ts';

const s = syncSuite({ limits: { maxFrameBytes: 64 * 1024 } });

describe('the stock y-websocket provider', () => {
  test('two clients edit one Y.Text at once and converge; a third joining late gets the whole document', async () => {
    const token = await s.token();
    const a = s.open(s.tenant.roomId, token);
    const b = s.open(s.tenant.roomId, token);
    await Promise.all([synced(a), synced(b)]);
    const textA = a.doc.getText('t');
    const textB = b.doc.getText('t');
    for (let i = 0; i < 20; i++) {
      textA.insert(0, `a${i} `);
      textB.insert(textB.length, `b${i} `);
    }
    await eventually(
      'both texts to converge',
      () => textA.toString() === textB.toString() && textA.length > 0,
    );
    for (let i = 0; i < 20; i++) {
      assert.ok(textA.toString().includes(`a${i} `));
      assert.ok(textA.toString().includes(`b${i} `));
    }
    const c = s.open(s.tenant.roomId, token);
    await synced(c);
    await eventually(
      'the late joiner to hold everything',
      () => c.doc.getText('t').toString() === textA.toString(),
    );
  });

  test('documents of one room are separate (roomId/docName)', async () => {
    const token = await s.token();
    const one = s.open(`${s.tenant.roomId}/notes`, token);
    const two = s.open(`${s.tenant.roomId}/notes`, token);
    const other = s.open(`${s.tenant.roomId}/other`, token);
    await Promise.all([synced(one), synced(two), synced(other)]);
    one.doc.getMap('m').set('k', 'v');
    await eventually('the same document to receive it', () => two.doc.getMap('m').get('k') === 'v');
    assert.equal(other.doc.getMap('m').get('k'), undefined);
  });

  test('the awareness of a client that closed disappears for the others', async () => {
    const token = await s.token();
    const a = s.open(`${s.tenant.roomId}/aw`, token);
    const b = s.open(`${s.tenant.roomId}/aw`, token);
    await Promise.all([synced(a), synced(b)]);
    a.awareness.setLocalStateField('user', { name: 'Ada' });
    const aId = a.doc.clientID;
    await eventually('b to see a', () => b.awareness.getStates().get(aId)?.user !== undefined);
    const c = s.open(`${s.tenant.roomId}/aw`, token);
    await synced(c);
    await eventually(
      'a late joiner to see a at once',
      () => c.awareness.getStates().get(aId)?.user !== undefined,
    );
    a.destroy();
    await eventually('b to see a gone', () => !b.awareness.getStates().has(aId));
    await eventually('c to see a gone', () => !c.awareness.getStates().has(aId));
  });

  test('a read-only token reads and shares awareness, but its updates are dropped', async () => {
    const writer = s.open(`${s.tenant.roomId}/ro`, await s.token());
    const reader = s.open(`${s.tenant.roomId}/ro`, await s.token({ scopes: ['sync:read'] }));
    await Promise.all([synced(writer), synced(reader)]);
    writer.doc.getText('t').insert(0, 'written');
    await eventually('the reader to read it', () => reader.doc.getText('t').toString() === 'written');
    const hub = s.t.hub;
    const droppedBefore = hub.stats.droppedUpdates;
    reader.doc.getText('t').insert(0, 'forged ');
    reader.awareness.setLocalStateField('user', { name: 'Reader' });
    await eventually(
      'the writer to see the reader',
      () => writer.awareness.getStates().get(reader.doc.clientID)?.user !== undefined,
    );
    // A later edit of the writer arrives after anything the reader sent before: the forged one never did.
    writer.doc.getText('t').insert(7, '!');
    const late = s.open(`${s.tenant.roomId}/ro`, await s.token());
    await synced(late);
    await eventually(
      'the late joiner to get the writer’s edits',
      () => late.doc.getText('t').toString() === 'written!',
    );
    assert.equal(writer.doc.getText('t').toString(), 'written!');
    assert.ok(hub.stats.droppedUpdates > droppedBefore, 'the dropped update is counted');
    assert.deepEqual(await documentData(s.t, s.tenant, 'ro'), { t: 'written!' });
  });
});

describe('refusals before the upgrade', () => {
  const refusal = (token?: string) => upgradeOutcome(socketUrl(s.t, s.tenant.roomId, token));

  test('no token: 401 unauthorized', async () => {
    assert.equal(await refusal(), '401 unauthorized');
  });
  test('a token without the sync module: 403 insufficient_scope', async () => {
    const token = await s.token({ modules: ['rooms', 'chat'] });
    assert.equal(await refusal(token), '403 insufficient_scope');
  });
  test('a token limited to another room: 403 forbidden', async () => {
    const token = await s.token({ roomId: 'some-other-room' });
    assert.equal(await refusal(token), '403 forbidden');
  });
  test("a token of another tenant: 404 not_found (the room is not the token's tenant's)", async () => {
    const stranger = await createTestTenant(s.t);
    const token = await syncToken(s.t, stranger.apiKey);
    assert.equal(await refusal(token), '404 not_found');
  });
  test('a forged token: 401 invalid_token', async () => {
    const token = await s.token();
    const forged = `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    assert.equal(await refusal(forged), '401 invalid_token');
  });
  test('an API key without sync:read: 403 insufficient_scope', async () => {
    const key = await createApiKey(s.t, s.tenant.tenantId, ['rooms:read']);
    assert.equal(await refusal(key), '403 insufficient_scope');
  });
  test('the control: the right token opens', async () => {
    assert.equal(await refusal(await s.token()), 'opened');
  });
});

describe('without the upgrade', () => {
  test('GET /v1/sync/:roomId[/:docName] answers where to connect and every limit a client meets', async () => {
    const token = await s.token();
    for (const path of [s.tenant.roomId, `${s.tenant.roomId}/notes`]) {
      const res = await s.t.app.inject({ method: 'GET', url: `/v1/sync/${path}?token=${token}` });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        url: `${s.t.config.publicUrl.replace(/^http/, 'ws')}/v1/sync/${path}`,
        limits: {
          // The instance's limits (this test's instance has 64 KiB frames) and the tenant's configuration.
          maxFrameBytes: 64 * 1024,
          pingIntervalMs: DEFAULT_SYNC_LIMITS.pingIntervalMs,
          maxDocumentBytes: 10 * 1024 * 1024,
          maxUpdatesPerSecond: 60,
          maxConnectionsPerDocument: DEFAULT_SYNC_LIMITS.maxConnectionsPerDocument,
        },
      });
    }
    assert.equal(DEFAULT_SYNC_LIMITS.maxConnectionsPerDocument, 500);
  });
});

describe('OpenAPI', () => {
  test('lists the upgrade routes and the REST routes', async () => {
    const res = await s.t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const paths = res.json<{
      paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
    }>().paths;
    const operation = (path: string, method: string) => paths[path]?.[method]?.operationId;
    assert.equal(operation('/v1/sync/{roomId}', 'get'), 'connectSync');
    assert.equal(operation('/v1/sync/{roomId}/{docName}', 'get'), 'connectSyncDocument');
    assert.ok(paths['/v1/sync/{roomId}']?.get?.responses?.['101'], 'the upgrade is documented (101)');
    assert.equal(operation('/v1/rooms/{roomId}/ydoc', 'get'), 'getSyncDocument');
    assert.equal(operation('/v1/rooms/{roomId}/ydoc-binary', 'get'), 'getSyncDocumentUpdate');
    assert.equal(operation('/v1/rooms/{roomId}/ydoc-binary', 'put'), 'applySyncDocumentUpdate');
  });
});

describe('bad frames close only their own connection', () => {
  async function raw(room: string): Promise<WebSocket> {
    const result = await tryUpgrade(socketUrl(s.t, room, await s.token()));
    if (!('socket' in result)) throw new Error(`refused: ${result.status} ${result.body}`);
    return result.socket;
  }
  const room = () => `${s.tenant.roomId}/frames`;

  test('malformed, text, unknown-step and oversized frames get 1007, 1003, 1007 and 1009', async () => {
    const token = await s.token();
    const bystander = s.open(room(), token);
    const peer = s.open(room(), token);
    await Promise.all([synced(bystander), synced(peer)]);

    const garbage = await raw(room());
    const garbageClosed = closeCode(garbage);
    garbage.send(new Uint8Array([0, 2, 200, 1, 2, 3]));
    assert.equal(await garbageClosed, SYNC_CLOSE.malformed);

    const notAnUpdate = await raw(room());
    const notAnUpdateClosed = closeCode(notAnUpdate);
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    encoding.writeVarUint(encoder, 2);
    encoding.writeVarUint8Array(encoder, new Uint8Array([255, 255, 255, 1, 7]));
    notAnUpdate.send(encoding.toUint8Array(encoder));
    assert.equal(await notAnUpdateClosed, SYNC_CLOSE.malformed);

    const text = await raw(room());
    const textClosed = closeCode(text);
    text.send('hello');
    assert.equal(await textClosed, SYNC_CLOSE.unsupported);

    const big = await raw(room());
    const bigClosed = closeCode(big);
    big.send(new Uint8Array(64 * 1024 + 1));
    assert.equal(await bigClosed, SYNC_CLOSE.tooBig);

    bystander.doc.getText('t').insert(0, 'still fine');
    await eventually('the others to go on', () => peer.doc.getText('t').toString() === 'still fine');
    assert.ok(bystander.wsconnected && peer.wsconnected);
  });
});
