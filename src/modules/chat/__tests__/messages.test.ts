import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { BOT, chatSuite, type Message, send, tenantWithRoom } from './support.ts';

const chat = chatSuite();

describe('chat messages over REST', () => {
  test('a session token posts as its actor; an API key names the actor; seq counts up per room', async () => {
    const { t, tenant } = await chat.room();
    const session = await connectSession(t, tenant.apiKey, { actorId: 'test:ann' });
    const first = await send(t, session.token, tenant.roomId, { text: 'hello', metadata: { lang: 'en' } });
    assert.equal(first.statusCode, 201, first.body);
    const message = first.json<Message>();
    assert.match(message.id, /^msg_/);
    assert.equal(message.seq, 1);
    assert.deepEqual(message.author, { type: 'end_user', id: 'test:ann', identityProvider: 'test' });

    const unnamed = await send(t, tenant.apiKey, tenant.roomId, { text: 'who am I' });
    assert.equal(unnamed.statusCode, 400);
    const bot = await send(t, tenant.apiKey, tenant.roomId, {
      text: 'beep',
      actor: BOT,
    });
    assert.equal(bot.statusCode, 201);
    assert.deepEqual([bot.json<Message>().seq, bot.json<Message>().author], [2, BOT]);
    const spoof = await send(t, session.token, tenant.roomId, {
      text: 'as bot',
      actor: BOT,
    });
    assert.equal(spoof.statusCode, 400, 'a session token cannot speak for another actor');

    const otherRoom = await tenantWithRoom(t);
    const elsewhere = await send(t, otherRoom.apiKey, otherRoom.roomId, {
      text: 'x',
      actor: BOT,
    });
    assert.equal(elsewhere.json<Message>().seq, 1, 'each room counts on its own');
  });

  test("an API key names the actor with the spec's Actor object, the same shape runtime/connect takes", async () => {
    const { t, tenant } = await chat.room();
    const actor = {
      type: 'end_user',
      id: 'acme-oidc:user_7',
      identityProvider: 'acme-oidc',
      displayName: 'Seven',
    };
    const sent = await send(t, tenant.apiKey, tenant.roomId, { text: 'from the spec actor', actor });
    assert.equal(sent.statusCode, 201, sent.body);
    const author = sent.json<Message>().author;
    assert.deepEqual(author, { type: 'end_user', id: 'acme-oidc:user_7', identityProvider: 'acme-oidc' });

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
      const refused = await send(t, tenant.apiKey, tenant.roomId, { text: 'x', actor: partial });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.ok(
        refused
          .json<{ details: { field: string }[] }>()
          .details.some((d) => d.field.startsWith('/body/actor')),
      );
    }
  });

  test('concurrent sends are numbered without gaps in arrival order; a retried clientId in the crowd returns the first message', async () => {
    const { t, tenant } = await chat.room();
    const first = await send(t, tenant.apiKey, tenant.roomId, {
      text: 'original',
      clientId: 'c-1',
      actor: BOT,
    });
    assert.equal(first.statusCode, 201, first.body);
    // Sends that arrive while the room's writer is busy are written together (on PostgreSQL, whose pool
    // lets them get that far; PGlite's one connection serializes them earlier); the retry among them breaks
    // the unique clientId, so that group is written again message by message.
    const texts = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const results = await Promise.all([
      ...texts.map((text, i) =>
        send(t, tenant.apiKey, tenant.roomId, {
          text,
          actor: { type: 'agent', id: `test:user-${i % 3}`, identityProvider: 'test' },
        }),
      ),
      send(t, tenant.apiKey, tenant.roomId, { text: 'nobody sent this' }),
      send(t, tenant.apiKey, tenant.roomId, {
        text: 'original again',
        clientId: 'c-1',
        actor: BOT,
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

  test('tenant config: maximum length and blocked words answer 400 with a code', async () => {
    const { t, tenant } = await chat.room();
    const configured = await call(t.app, {
      method: 'PUT',
      url: `/api/console/tenants/${tenant.tenantId}/modules/chat`,
      headers: bearer(tenant.ownerToken),
      payload: { enabled: true, config: { maxLength: 10, blockedWords: ['Spam', 'c++'] } },
    });
    assert.equal(configured.statusCode, 200, configured.body);
    t.app.services.enablement.invalidate(tenant.tenantId);
    const actor = BOT;
    const code = async (text: string) => {
      const res = await send(t, tenant.apiKey, tenant.roomId, { text, actor });
      return res.statusCode === 201 ? 'ok' : res.json<{ details: { code: string }[] }>().details[0]?.code;
    };
    assert.equal(await code('0123456789'), 'ok');
    assert.equal(await code('01234567890'), 'too_long');
    assert.equal(await code('👍👍👍👍👍👍👍👍👍👍'), 'ok', 'characters, not UTF-16 units, are counted');
    assert.equal(await code('buy SPAM'), 'blocked_word');
    assert.equal(await code('spammer'), 'ok', 'whole words only');
    assert.equal(await code('I like c++'), 'blocked_word');
    const tooLong = await send(t, tenant.apiKey, tenant.roomId, { text: 'x'.repeat(4001), actor });
    assert.equal(tooLong.statusCode, 400);
  });
});
