import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { chatSuite, type Message, send } from './support.ts';

const chat = chatSuite();

describe('chat edits, deletions and reactions', () => {
  test('edit: the author or an API key; delete leaves a tombstone; reactions count per actor', async () => {
    const { t, tenant } = await chat.room();
    const author = await connectSession(t, tenant.apiKey, { actorId: 'test:author' });
    const other = await connectSession(t, tenant.apiKey, { actorId: 'test:other' });
    const created = (await send(t, author.token, tenant.roomId, { text: 'draft' })).json<Message>();
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
});
