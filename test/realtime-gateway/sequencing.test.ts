import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { systemClock } from '../../src/core/clock.ts';
import type { ServiceContext } from '../../src/core/context.ts';
import { MemoryEventBus } from '../../src/core/events/bus.ts';
import { EventStore } from '../../src/core/events/store.ts';
import type { TenantEvent } from '../../src/core/events/types.ts';
import { traceFrom } from '../../src/core/http/request-id.ts';
import { editMessage } from '../../src/modules/chat/verbs/edit-message.ts';
import { sendMessage } from '../../src/modules/chat/verbs/send-message.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  t = await startInstance({ chat: { gapWaitMs: 200 } });
});
after(async () => t.close());

/**
 * Commits a message whose event goes to a bus nobody relays: what happens when the instance that
 * committed it dies before publishing, or publishes late. Returns the event it would have published.
 */
async function commitUnpublished(tenantId: string, roomId: string, text: string): Promise<TenantEvent> {
  return unpublished(tenantId, (ctx) =>
    sendMessage(ctx, { roomId, text, actor: { type: 'agent', id: 'test:bot', identityProvider: 'test' } }),
  );
}

/** Runs a chat verb whose event goes to a bus nobody relays; returns the event it would have published. */
async function unpublished(
  tenantId: string,
  verb: (ctx: ServiceContext) => Promise<unknown>,
): Promise<TenantEvent> {
  const captured: TenantEvent[] = [];
  const bus = new MemoryEventBus();
  bus.subscribe((event) => captured.push(event));
  const ctx: ServiceContext = {
    ...t.app.services,
    events: new EventStore(bus, systemClock),
    log: t.app.log,
    tenantId,
    principal: undefined,
    requestId: 'req_test',
    trace: traceFrom(undefined),
    origin: 'system',
  };
  await verb(ctx);
  const event = captured[0];
  if (event === undefined) throw new Error('no event');
  return event;
}

describe('chat order when publications go missing or arrive late', () => {
  test('a message never published is read from the database before the next one is delivered', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(room);
    await commitUnpublished(tenant.tenantId, room, 'lost on the way');
    await postMessage(t, tenant.apiKey, room, 'published');
    await eventually('both messages', () => client.messages(room).length === 2 || undefined);
    assert.deepEqual(
      client.messages(room).map((m) => [m.seq, m.text]),
      [
        [1, 'lost on the way'],
        [2, 'published'],
      ],
    );
  });

  test('a message published after the next one is still delivered first, and only once', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(room);
    const late = await commitUnpublished(tenant.tenantId, room, 'slow publisher');
    await postMessage(t, tenant.apiKey, room, 'fast publisher');
    t.app.services.events.bus.publish(late);
    await postMessage(t, tenant.apiKey, room, 'third');
    await eventually('three messages', () => client.messages(room).length >= 3 || undefined);
    client.send({ type: 'ping', ref: 'end' });
    await client.waitFor((f) => f.ref === 'end', 'pong');
    assert.deepEqual(
      client.messages(room).map((m) => m.seq),
      [1, 2, 3],
    );
  });

  test('an edit never published is read from the database and delivered in its place', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    await client.join(room);
    const first = await postMessage(t, tenant.apiKey, room, 'draft');
    await client.waitForType('chat.message');
    await unpublished(tenant.tenantId, (ctx) =>
      editMessage(ctx, { roomId: room, messageId: first.id, text: 'final' }),
    );
    const second = await postMessage(t, tenant.apiKey, room, 'next');
    await eventually('three changes', () => client.changes(room).length === 3 || undefined);
    client.send({ type: 'ping', ref: 'end' });
    await client.waitFor((f) => f.ref === 'end', 'pong');
    assert.deepEqual(
      client.changes(room).map((f) => [f.type, f.message.id, f.changeSeq, f.message.text]),
      [
        ['chat.message', first.id, 1, 'draft'],
        ['chat.updated', first.id, 2, 'final'],
        ['chat.message', second.id, 3, 'next'],
      ],
    );
  });
});
