import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';

interface Message {
  id: string;
  seq: number;
  text: string;
  author: { id: string; type: string; externalId: string };
  reactions: { emoji: string; count: number }[];
  revision: number;
  editedAt: string | null;
  deletedAt: string | null;
}

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => t.close());

async function tenantWithRoom(): Promise<TestTenant & { roomId: string }> {
  const tenant = await createTestTenant(t);
  const roomId = `room-${Math.random().toString(36).slice(2)}`;
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/rooms',
    headers: bearer(tenant.apiKey),
    payload: { id: roomId },
  });
  assert.equal(res.statusCode, 201);
  return { ...tenant, roomId };
}

async function send(key: string, roomId: string, payload: Record<string, unknown>) {
  return call(t.app, { method: 'POST', url: `/v1/rooms/${roomId}/messages`, headers: bearer(key), payload });
}

describe('chat messages over REST', () => {
  test('a session token posts as its actor; an API key names the actor; seq counts up per room', async () => {
    const tenant = await tenantWithRoom();
    const session = await connectSession(t, tenant.apiKey, { actorId: 'test:ann' });
    const first = await send(session.token, tenant.roomId, { text: 'hello', metadata: { lang: 'en' } });
    assert.equal(first.statusCode, 201, first.body);
    const message = first.json<Message>();
    assert.match(message.id, /^msg_/);
    assert.equal(message.seq, 1);
    assert.equal(message.author.externalId, 'test:ann');

    const unnamed = await send(tenant.apiKey, tenant.roomId, { text: 'who am I' });
    assert.equal(unnamed.statusCode, 400);
    const bot = await send(tenant.apiKey, tenant.roomId, {
      text: 'beep',
      actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
    });
    assert.equal(bot.statusCode, 201);
    assert.deepEqual(
      [bot.json<Message>().seq, bot.json<Message>().author.type, bot.json<Message>().author.externalId],
      [2, 'agent', 'test:bot'],
    );
    const spoof = await send(session.token, tenant.roomId, {
      text: 'as bot',
      actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
    });
    assert.equal(spoof.statusCode, 400, 'a session token cannot speak for another actor');

    const otherRoom = await tenantWithRoom();
    const elsewhere = await send(otherRoom.apiKey, otherRoom.roomId, {
      text: 'x',
      actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
    });
    assert.equal(elsewhere.json<Message>().seq, 1, 'each room counts on its own');
  });

  test("an API key names the actor with the spec's Actor object, the same shape runtime/connect takes", async () => {
    const tenant = await tenantWithRoom();
    const actor = {
      type: 'end_user',
      id: 'acme-oidc:user_7',
      identityProvider: 'acme-oidc',
      displayName: 'Seven',
    };
    const sent = await send(tenant.apiKey, tenant.roomId, { text: 'from the spec actor', actor });
    assert.equal(sent.statusCode, 201, sent.body);
    const author = sent.json<Message>().author;
    assert.deepEqual([author.type, author.externalId], ['end_user', 'acme-oidc:user_7']);

    const connected = await call(t.app, {
      method: 'POST',
      url: '/v1/runtime/connect',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { modules: ['chat'], actor },
    });
    assert.equal(connected.statusCode, 201, connected.body);
    const session = connected.json<{ actor: { id: string; identityProvider: string } }>().actor;
    assert.equal(session.id, author.id, 'connect and chat name the same actor the same way');
    assert.equal(session.identityProvider, 'acme-oidc');

    const messageId = sent.json<Message>().id;
    const reacted = await call(t.app, {
      method: 'POST',
      url: `/v1/rooms/${tenant.roomId}/messages/${messageId}/reactions/${encodeURIComponent('👍')}?actor=acme-oidc:user_7`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(reacted.statusCode, 200, reacted.body);

    for (const partial of [{ id: 'acme-oidc:user_7' }, { id: 'acme-oidc:user_7', type: 'agent' }]) {
      const refused = await send(tenant.apiKey, tenant.roomId, { text: 'x', actor: partial });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.ok(
        refused
          .json<{ details: { field: string }[] }>()
          .details.some((d) => d.field.startsWith('/body/actor')),
      );
    }
  });

  test('concurrent sends are numbered without gaps in arrival order; a retried clientId in the crowd returns the first message', async () => {
    const tenant = await tenantWithRoom();
    const first = await send(tenant.apiKey, tenant.roomId, {
      text: 'original',
      clientId: 'c-1',
      actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
    });
    assert.equal(first.statusCode, 201, first.body);
    // Sends that arrive while the room's writer is busy are written together (on PostgreSQL, whose pool
    // lets them get that far; PGlite's one connection serializes them earlier); the retry among them breaks
    // the unique clientId, so that group is written again message by message.
    const texts = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const results = await Promise.all([
      ...texts.map((text, i) =>
        send(tenant.apiKey, tenant.roomId, {
          text,
          actor: { type: 'agent', id: `test:user-${i % 3}`, identityProvider: 'test' },
        }),
      ),
      send(tenant.apiKey, tenant.roomId, { text: 'nobody sent this' }),
      send(tenant.apiKey, tenant.roomId, {
        text: 'original again',
        clientId: 'c-1',
        actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
      }),
    ]);
    const retry = results.pop();
    const unnamed = results.pop();
    assert.equal(unnamed?.statusCode, 400, 'an API key must name the actor; the others are not affected');
    assert.ok(retry !== undefined);
    assert.ok([200, 201].includes(retry.statusCode), retry.body);
    assert.deepEqual(
      [retry.json<Message>().id, retry.json<Message>().text],
      [first.json<Message>().id, 'original'],
    );
    for (const res of results) assert.equal(res.statusCode, 201, res.body);
    const seqs = results.map((res) => res.json<Message>().seq).sort((a, b) => a - b);
    assert.deepEqual(
      seqs,
      Array.from({ length: texts.length }, (_, i) => i + 2),
      'consecutive, no gaps',
    );
    const history = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/messages?limit=100`,
      headers: bearer(tenant.apiKey),
    });
    const stored = history.json<{ data: Message[] }>().data;
    assert.equal(stored.length, texts.length + 1);
    assert.deepEqual(
      stored.map((m) => m.seq),
      Array.from({ length: texts.length + 1 }, (_, i) => i + 1),
    );
    for (const res of results) {
      const sent = res.json<Message>();
      assert.equal(
        stored.find((m) => m.seq === sent.seq)?.text,
        sent.text,
        'the answer matches what is stored',
      );
    }
  });

  test('history pages both ways by seq, oldest first within a page, with tombstones kept', async () => {
    const tenant = await tenantWithRoom();
    for (let i = 1; i <= 12; i++) {
      assert.equal(
        (
          await send(tenant.apiKey, tenant.roomId, {
            text: `m${i}`,
            actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' },
          })
        ).statusCode,
        201,
      );
    }
    const get = (query: string) =>
      call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${tenant.roomId}/messages${query}`,
        headers: bearer(tenant.apiKey),
      });
    const seqs = (res: Awaited<ReturnType<typeof get>>) =>
      res.json<{ data: Message[] }>().data.map((m) => m.seq);
    const newest = await get('?limit=5');
    assert.deepEqual(seqs(newest), [8, 9, 10, 11, 12]);
    assert.equal(newest.json<{ hasMore: boolean }>().hasMore, true);
    assert.deepEqual(seqs(await get('?limit=5&before=8')), [3, 4, 5, 6, 7]);
    const oldest = await get('?limit=5&before=3');
    assert.deepEqual(seqs(oldest), [1, 2]);
    assert.equal(oldest.json<{ hasMore: boolean }>().hasMore, false);
    assert.deepEqual(seqs(await get('?after=0&limit=4')), [1, 2, 3, 4]);
    const tail = await get('?after=10');
    assert.deepEqual(seqs(tail), [11, 12]);
    assert.equal(tail.json<{ hasMore: boolean }>().hasMore, false);
    assert.deepEqual(seqs(await get('?after=3&before=6')), [4, 5]);
    assert.equal((await get('?limit=101')).statusCode, 400);
    assert.equal((await get('?after=-1')).statusCode, 400);
  });

  test('edit: the author or an API key; delete leaves a tombstone; reactions count per actor', async () => {
    const tenant = await tenantWithRoom();
    const author = await connectSession(t, tenant.apiKey, { actorId: 'test:author' });
    const other = await connectSession(t, tenant.apiKey, { actorId: 'test:other' });
    const created = (await send(author.token, tenant.roomId, { text: 'draft' })).json<Message>();
    const url = `/v1/rooms/${tenant.roomId}/messages/${created.id}`;
    const patch = (key: string, payload: Record<string, unknown>) =>
      call(t.app, { method: 'PATCH', url, headers: bearer(key), payload });
    assert.equal((await patch(other.token, { text: 'hijack' })).statusCode, 403);
    const edited = await patch(author.token, { text: 'final' });
    assert.equal(edited.statusCode, 200);
    assert.equal(edited.json<Message>().text, 'final');
    assert.equal(typeof edited.json<Message>().editedAt, 'string');
    assert.equal((await patch(tenant.apiKey, { metadata: { pinned: true } })).statusCode, 200);
    assert.equal((await patch(author.token, {})).statusCode, 400);

    const react = (method: 'POST' | 'DELETE', key: string, emoji: string, actor = '') =>
      call(t.app, {
        method,
        url: `${url}/reactions/${encodeURIComponent(emoji)}${actor === '' ? '' : `?actor=${actor}`}`,
        headers: bearer(key),
      });
    await react('POST', author.token, '🎉');
    await react('POST', other.token, '🎉');
    const again = await react('POST', other.token, '🎉');
    assert.deepEqual(again.json<Message>().reactions, [{ emoji: '🎉', count: 2 }]);
    const byBot = await react('POST', tenant.apiKey, '+1', 'test:bot');
    assert.deepEqual(byBot.json<Message>().reactions, [
      { emoji: '🎉', count: 2 },
      { emoji: '+1', count: 1 },
    ]);
    assert.equal((await react('POST', tenant.apiKey, '+1')).statusCode, 400, 'an API key names the actor');
    const removed = await react('DELETE', other.token, '🎉');
    assert.deepEqual(removed.json<Message>().reactions[0], { emoji: '🎉', count: 1 });

    assert.equal(
      (await call(t.app, { method: 'DELETE', url, headers: bearer(other.token) })).statusCode,
      403,
    );
    const deleted = await call(t.app, { method: 'DELETE', url, headers: bearer(author.token) });
    assert.equal(deleted.statusCode, 200);
    const tombstone = deleted.json<Message>();
    assert.equal(tombstone.text, '');
    assert.equal(typeof tombstone.deletedAt, 'string');
    assert.deepEqual(tombstone.reactions, []);
    const again2 = await call(t.app, { method: 'DELETE', url, headers: bearer(tenant.apiKey) });
    assert.deepEqual(again2.json<Message>(), tombstone, 'deleting twice changes nothing');
    assert.equal((await patch(author.token, { text: 'revive' })).statusCode, 409);
    const listed = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${tenant.roomId}/messages`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(listed.json<{ data: Message[] }>().data[0]?.deletedAt, tombstone.deletedAt);
  });

  test('tenant config: maximum length and blocked words answer 400 with a code', async () => {
    const tenant = await tenantWithRoom();
    const configured = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/chat`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: true, config: { maxLength: 10, blockedWords: ['Spam', 'c++'] } },
    });
    assert.equal(configured.statusCode, 200, configured.body);
    t.app.services.enablement.invalidate(tenant.tenantId);
    const actor = { type: 'agent', id: 'test:bot', identityProvider: 'test' };
    const code = async (text: string) => {
      const res = await send(tenant.apiKey, tenant.roomId, { text, actor });
      return res.statusCode === 201 ? 'ok' : res.json<{ details: { code: string }[] }>().details[0]?.code;
    };
    assert.equal(await code('0123456789'), 'ok');
    assert.equal(await code('01234567890'), 'too_long');
    assert.equal(await code('👍👍👍👍👍👍👍👍👍👍'), 'ok', 'characters, not UTF-16 units, are counted');
    assert.equal(await code('buy SPAM'), 'blocked_word');
    assert.equal(await code('spammer'), 'ok', 'whole words only');
    assert.equal(await code('I like c++'), 'blocked_word');
    const tooLong = await send(tenant.apiKey, tenant.roomId, { text: 'x'.repeat(4001), actor });
    assert.equal(tooLong.statusCode, 400);
  });

  test('events are written for webhooks; actions call the same verbs', async () => {
    const tenant = await tenantWithRoom();
    const sent = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/send_message',
      headers: bearer(tenant.apiKey),
      payload: {
        arguments: {
          roomId: tenant.roomId,
          text: 'via action',
          actor: { type: 'agent', id: 'test:agent', identityProvider: 'test' },
        },
      },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const message = sent.json<{ result: Message }>().result;
    const listed = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/list_messages',
      headers: bearer(tenant.apiKey),
      payload: { arguments: { roomId: tenant.roomId } },
    });
    assert.deepEqual(
      listed.json<{ result: { data: Message[] } }>().result.data.map((m) => m.id),
      [message.id],
    );
    const removed = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/delete_message',
      headers: bearer(tenant.apiKey),
      payload: { arguments: { roomId: tenant.roomId, messageId: message.id } },
    });
    assert.equal(removed.statusCode, 200, removed.body);
    const actions = await call(t.app, { method: 'GET', url: '/v1/actions', headers: bearer(tenant.apiKey) });
    assert.match(actions.body, /"delete_message"/);
    for (const type of ['chat.message.created', 'chat.message.deleted']) {
      const events = await call(t.app, {
        method: 'GET',
        url: `/v1/events?type=${type}`,
        headers: bearer(tenant.apiKey),
      });
      const data = events.json<{ data: { data: { roomId: string; message: { id: string } } }[] }>().data;
      assert.equal(data.length, 1, type);
      assert.equal(data[0]?.data.message.id, message.id);
      assert.equal(data[0]?.data.roomId, tenant.roomId);
    }
  });

  test('security: credential, scope, room limit, tenant and module checks', async () => {
    const tenant = await tenantWithRoom();
    const stranger = await tenantWithRoom();
    const url = `/v1/rooms/${tenant.roomId}/messages`;
    assert.equal((await call(t.app, { method: 'GET', url })).statusCode, 401);
    const presenceOnly = await connectSession(t, tenant.apiKey, { modules: ['presence'] });
    const noScope = await call(t.app, { method: 'GET', url, headers: bearer(presenceOnly.token) });
    assert.equal(noScope.statusCode, 403);
    assert.equal(noScope.json<{ error: string }>().error, 'insufficient_scope');
    const limited = await connectSession(t, tenant.apiKey, { roomId: 'some-other-room' });
    assert.equal((await send(limited.token, tenant.roomId, { text: 'x' })).statusCode, 403);
    const wrongTenant = await call(t.app, { method: 'GET', url, headers: bearer(stranger.apiKey) });
    assert.equal(wrongTenant.statusCode, 404, 'another tenant’s room does not exist for this key');
    assert.equal(
      (
        await send(stranger.apiKey, tenant.roomId, {
          text: 'x',
          actor: { type: 'agent', id: 'test:b', identityProvider: 'test' },
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (
        await send(tenant.apiKey, 'no-such-room', {
          text: 'x',
          actor: { type: 'agent', id: 'test:b', identityProvider: 'test' },
        })
      ).statusCode,
      404,
    );
    const missingMessage = await call(t.app, {
      method: 'DELETE',
      url: `${url}/msg_01m81djwdg28krjm4b72d9xh5b`,
      headers: bearer(tenant.apiKey),
    });
    assert.equal(missingMessage.statusCode, 404);
    const off = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/chat`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: false },
    });
    assert.equal(off.statusCode, 200);
    const disabled = await call(t.app, { method: 'GET', url, headers: bearer(tenant.apiKey) });
    assert.equal(disabled.statusCode, 403);
    assert.equal(disabled.json<{ error: string }>().error, 'module_disabled');
  });
});
