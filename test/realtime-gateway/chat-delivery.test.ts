import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { createRoom, postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  t = await startInstance();
});
after(async () => t.close());

/** Seqs 1..n exactly once each, in order. */
function assertDenseOrder(seqs: number[], n: number, who: string): void {
  assert.deepEqual(
    seqs,
    Array.from({ length: n }, (_, i) => i + 1),
    `${who} got every message once, in seq order`,
  );
}

describe('chat over the gateway', () => {
  test('a message sent over REST reaches sockets in the room, and only there', async () => {
    const tenant = await tenantWithRoom(t);
    const other = await tenantWithRoom(t);
    const inRoom = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    const elsewhere = await TestClient.connect(t.wsUrl, await sessionToken(t, other.apiKey));
    await inRoom.join(tenant.roomId);
    await elsewhere.join(other.roomId);
    const sent = await postMessage(t, tenant.apiKey, tenant.roomId, 'hello from the server');
    const frame = await inRoom.waitForType('chat.message');
    assert.equal(frame.room, tenant.roomId);
    assert.deepEqual(
      { id: (frame.message as { id: string }).id, seq: (frame.message as { seq: number }).seq },
      { id: sent.id, seq: 1 },
    );
    assert.deepEqual((frame.message as { author: unknown }).author, {
      type: 'agent',
      id: 'test:server-bot',
      identityProvider: 'test',
    });
    // The other tenant's socket heard nothing of it (a later message of its own arrives alone).
    await postMessage(t, other.apiKey, other.roomId, 'other tenant');
    await elsewhere.waitForType('chat.message');
    assert.deepEqual(
      elsewhere.messages(other.roomId).map((m) => m.text),
      ['other tenant'],
    );
    await inRoom.close();
    await elsewhere.close();
  });

  test('chat.send posts as the actor; the sender gets it back with its clientId; refusals come as error', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const sender = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { actorId: 'test:bob' }),
    );
    await sender.join(room);
    sender.send({ type: 'chat.send', room, text: 'hi all', clientId: 'c-1', metadata: { mood: 'happy' } });
    const own = await sender.waitForType('chat.message');
    const message = own.message as { clientId: string; author: unknown; metadata: unknown };
    assert.equal(message.clientId, 'c-1');
    assert.deepEqual(message.author, { type: 'end_user', id: 'test:bob', identityProvider: 'test' });
    assert.deepEqual(message.metadata, { mood: 'happy' });

    // A retry with the same clientId does not post twice, and gets the first message back (no new change).
    sender.send({ type: 'chat.send', room, text: 'hi all', clientId: 'c-1' });
    const again = await sender.waitFor(
      (f) => f.type === 'chat.message' && f !== own,
      'the first message back',
    );
    assert.equal((again.message as { id: string }).id, (own.message as { id: string }).id);
    assert.equal(again.changeSeq, undefined, 'a retry is not a change of the room');
    const listed = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/messages`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(listed.json<{ data: unknown[] }>().data.length, 1);

    const set = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/chat`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: true, config: { blockedWords: ['darn'] } },
    });
    assert.equal(set.statusCode, 200, set.body);
    t.app.services.enablement.invalidate(tenant.tenantId);
    sender.send({ type: 'chat.send', room, text: 'well DARN it', clientId: 'c-2' });
    const refused = await sender.waitFor((f) => f.type === 'error' && f.ref === 'c-2', 'the refusal');
    assert.equal(refused.code, 'invalid_request');
    assert.equal((refused.details as { code: string }[])[0]?.code, 'blocked_word');

    // Text the database cannot store is refused as the frame it came in, never an internal error.
    sender.send({ type: 'chat.send', room, text: 'a\u0000b', ref: 'nul' });
    const nul = await sender.waitFor((f) => f.ref === 'nul', 'the NUL refusal');
    assert.equal(nul.code, 'invalid_frame');
    assert.equal((nul.details as { code: string }[])[0]?.code, 'invalid_character');

    sender.send({ type: 'chat.send', room: 'not-joined', text: 'x', ref: 'nj' });
    assert.equal((await sender.waitFor((f) => f.ref === 'nj', 'not joined')).code, 'not_joined');
    await sender.close();
  });

  test('concurrent senders over REST and WebSocket: every socket sees one dense order per room', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const senders = await Promise.all(
      [1, 2, 3].map(async (i) =>
        TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey, { actorId: `test:sender-${i}` })),
      ),
    );
    const listener = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    for (const client of [...senders, listener]) await client.join(room);
    const perSender = 15;
    const restPosts = Array.from({ length: perSender }, (_, i) =>
      postMessage(t, tenant.apiKey, room, `rest ${i}`),
    );
    for (let i = 0; i < perSender; i++) {
      for (const [n, sender] of senders.entries()) {
        sender.send({ type: 'chat.send', room, text: `ws ${n}.${i}`, clientId: `s${n}-${i}` });
      }
    }
    await Promise.all(restPosts);
    const total = perSender * (senders.length + 1);
    const everyone = [...senders, listener];
    await eventually(
      `all ${total} messages on every socket`,
      () => everyone.every((c) => c.messages(room).length >= total) || undefined,
    );
    const reference = listener.messages(room).map((m) => m.id);
    for (const [n, client] of everyone.entries()) {
      assertDenseOrder(
        client.messages(room).map((m) => m.seq),
        total,
        `client ${n}`,
      );
      assert.deepEqual(
        client.messages(room).map((m) => m.id),
        reference,
        'the same message order on every socket',
      );
    }
    // Each sender's own messages keep the order it sent them in (its frames are handled one by one).
    for (const n of [0, 1, 2]) {
      const own = listener
        .messages(room)
        .filter((m) => typeof m.clientId === 'string' && m.clientId.startsWith(`s${n}-`))
        .map((m) => m.clientId);
      assert.deepEqual(
        own,
        Array.from({ length: perSender }, (_, i) => `s${n}-${i}`),
      );
    }
    const history = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/messages?limit=100`,
      headers: bearer(tenant.apiKey),
    });
    assert.deepEqual(
      history.json<{ data: { id: string }[] }>().data.map((m) => m.id),
      reference,
      'the database has the order the sockets saw',
    );
    for (const client of everyone) await client.close();
  });

  test('edits, reactions and deletions reach the room as chat.updated and chat.deleted', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(room);
    const sent = await postMessage(t, tenant.apiKey, room, 'first draft');
    const base = `/v1/rooms/${room}/messages/${sent.id}`;
    const headers = bearer(tenant.apiKey);
    assert.equal(
      (await call(t.app, { method: 'PATCH', url: base, headers, payload: { text: 'final' } })).statusCode,
      200,
    );
    assert.equal(
      (
        await call(t.app, {
          method: 'POST',
          url: `${base}/reactions/${encodeURIComponent('👍')}?actor=test:fan`,
          headers,
        })
      ).statusCode,
      200,
    );
    assert.equal((await call(t.app, { method: 'DELETE', url: base, headers })).statusCode, 200);
    const updates = await eventually('two chat.updated frames', () =>
      client.of('chat.updated').length >= 2 ? client.of('chat.updated') : undefined,
    );
    const revisions = updates.map((f) => (f.message as { revision: number }).revision);
    assert.deepEqual(revisions, [1, 2]);
    assert.equal((updates[0]?.message as { text: string } | undefined)?.text, 'final');
    assert.deepEqual((updates[1]?.message as { reactions: unknown } | undefined)?.reactions, [
      { emoji: '👍', count: 1 },
    ]);
    const deleted = await client.waitForType('chat.deleted');
    assert.equal((deleted.message as { text: string }).text, '');
    assert.equal(typeof (deleted.message as { deletedAt: unknown }).deletedAt, 'string');
    await client.close();
  });

  test('a room deleted and created again under its id is numbered from 1 again for joined sockets', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(room);
    await postMessage(t, tenant.apiKey, room, 'before');
    await postMessage(t, tenant.apiKey, room, 'before too');
    const deleted = await call(t.app, {
      method: 'DELETE',
      url: `/v1/rooms/${room}`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(deleted.statusCode, 200);
    await client.waitForType('event', (f) => (f.event as { type: string }).type === 'room.deleted');
    await createRoom(t, tenant.apiKey, room);
    await postMessage(t, tenant.apiKey, room, 'after');
    await client.waitFor(
      (f) => f.type === 'chat.message' && (f.message as { text: string }).text === 'after',
      'after',
    );
    assert.deepEqual(
      client.messages(room).map((m) => [m.seq, m.text]),
      [
        [1, 'before'],
        [2, 'before too'],
        [1, 'after'],
      ],
    );
    await client.close();
  });

  test('room events reach the room as event frames', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(tenant.roomId);
    const patched = await call(t.app, {
      method: 'PATCH',
      url: `/v1/rooms/${tenant.roomId}`,
      headers: bearer(tenant.apiKey),
      payload: { metadata: { stage: 'live' } },
    });
    assert.equal(patched.statusCode, 200);
    const frame = await client.waitForType('event');
    const event = frame.event as { type: string; data: { roomId: string }; trace?: unknown };
    assert.equal(event.type, 'room.updated');
    assert.equal(event.data.roomId, tenant.roomId);
    assert.equal(event.trace, undefined, 'trace metadata stays with the tenant servers');
    await client.close();
  });
});
