import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { bearer, connectSession, type TestTenant } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { enableModule } from '../../../../test/support/module-settings.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import type { TenantEvent } from '../../../core/events/types.ts';
import { capturePlatformEvent } from '../hooks.ts';
import { hostOf, keyOf, postQuery, tenantOf } from './support.ts';

describe('analytics: platform events captured', () => {
  const s = appSuite({ tenants: 2 });
  const on = () => s.tenant;
  const off = () => tenantOf(s, 1);
  before(() => enableModule(s.t, on(), 'analytics', { capturePlatformEvents: true }));
  const post = (headers: Record<string, string>, url: string, payload: object) =>
    call(s.t.app, { method: 'POST', url, headers, payload });
  const get = (tenant: TestTenant, url: string) =>
    call(s.t.app, { method: 'GET', url, headers: keyOf(tenant.apiKey) });

  const recorded = async (tenantId: string, event: string) => {
    const { rows } = await s.t.db.query<{
      message_id: string;
      actor_id: string;
      room_id: string | null;
      properties: Record<string, unknown>;
    }>(
      'select message_id, actor_id, room_id, properties from analytics_events where tenant_id = $1 and event = $2',
      [tenantId, event],
    );
    return rows;
  };

  const tenantEvent = async (tenant: TestTenant, type: string): Promise<TenantEvent> => {
    const res = await get(tenant, '/v1/events?limit=100');
    const found = res.json<{ data: { id: string; type: string }[] }>().data.find((e) => e.type === type);
    assert.ok(found, `a ${type} event`);
    const one = await get(tenant, `/v1/events/${found.id}`);
    const body = one.json<Omit<TenantEvent, 'tenantId' | 'createdAt'> & { created_at: string }>();
    return { ...body, createdAt: body.created_at, tenantId: tenant.tenantId };
  };

  test('a room creation and a chat message become $room.created and $chat.message.created, once each', async () => {
    const room = await post(keyOf(on().apiKey), '/v1/rooms', { id: 'show-1' });
    assert.equal(room.statusCode, 201, room.body);
    const session = await connectSession(s.t, on().apiKey, {
      modules: ['rooms', 'chat'],
      actorId: 'test:viewer',
    });
    const sent = await post(bearer(session.token), '/v1/rooms/show-1/messages', { text: 'hello' });
    assert.equal(sent.statusCode, 201, sent.body);
    const rooms = await eventually('$room.created recorded', async () => {
      const rows = await recorded(on().tenantId, '$room.created');
      return rows.length > 0 && rows;
    });
    const messages = await eventually('$chat.message.created recorded', async () => {
      const rows = await recorded(on().tenantId, '$chat.message.created');
      return rows.length > 0 && rows;
    });
    assert.equal(rooms.length, 1);
    assert.equal(rooms[0]?.room_id, 'show-1');
    assert.equal(messages.length, 1);
    assert.equal(messages[0]?.actor_id, 'test:viewer');
    assert.equal(messages[0]?.room_id, 'show-1');

    // The bus hands an event to the subscriber once; handed again (a redelivery), it records nothing.
    const event = await tenantEvent(on(), 'chat.message.created');
    assert.equal(messages[0]?.message_id, `$${event.id}`);
    assert.equal(await capturePlatformEvent(hostOf(s.t), event), false);
    assert.equal((await recorded(on().tenantId, '$chat.message.created')).length, 1);
    const queried = await postQuery(s.t, keyOf(on().apiKey), {
      event: ['$room.created', '$chat.message.created'],
      metrics: ['events', 'uniques'],
      dateRange: { preset: 'today' },
    });
    assert.deepEqual(queried.json<{ totals: unknown }>().totals, { events: 2, uniques: 2 });
  });

  test('a tenant that did not turn capture on records nothing', async () => {
    const room = await post(keyOf(off().apiKey), '/v1/rooms', { id: 'quiet' });
    assert.equal(room.statusCode, 201);
    const event = await tenantEvent(off(), 'room.created');
    assert.equal(await capturePlatformEvent(hostOf(s.t), event), false);
    assert.deepEqual(await recorded(off().tenantId, '$room.created'), []);
  });
});
