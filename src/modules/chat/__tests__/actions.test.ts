import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { chatSuite, type Message, send, tenantWithRoom } from './support.ts';

const chat = chatSuite();

describe('chat actions, events and security', () => {
  test('events are written for webhooks; actions call the same verbs', async () => {
    const { t, tenant } = await chat.room();
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
    const { t, tenant } = await chat.room();
    const stranger = await tenantWithRoom(t);
    const url = `/v1/rooms/${tenant.roomId}/messages`;
    assert.equal((await call(t.app, { method: 'GET', url })).statusCode, 401);
    const presenceOnly = await connectSession(t, tenant.apiKey, { modules: ['presence'] });
    const noScope = await call(t.app, { method: 'GET', url, headers: bearer(presenceOnly.token) });
    assert.equal(noScope.statusCode, 403);
    assert.equal(noScope.json<{ error: string }>().error, 'insufficient_scope');
    const limited = await connectSession(t, tenant.apiKey, { roomId: 'some-other-room' });
    assert.equal((await send(t, limited.token, tenant.roomId, { text: 'x' })).statusCode, 403);
    const wrongTenant = await call(t.app, { method: 'GET', url, headers: bearer(stranger.apiKey) });
    assert.equal(wrongTenant.statusCode, 404, 'another tenant’s room does not exist for this key');
    assert.equal(
      (
        await send(t, stranger.apiKey, tenant.roomId, {
          text: 'x',
          actor: { type: 'agent', id: 'test:b', identityProvider: 'test' },
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (
        await send(t, tenant.apiKey, 'no-such-room', {
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
