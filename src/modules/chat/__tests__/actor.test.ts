import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { BOT, type Message, send, tenantWithRoom } from './support.ts';

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => t.close());

/** The actor's internal row id, which the API must never show. */
async function internalId(tenantId: string, externalId: string): Promise<string> {
  const { rows } = await t.db.query<{ id: string }>(
    'select id::text as id from actors where tenant_id = $1 and external_id = $2',
    [tenantId, externalId],
  );
  const id = rows[0]?.id;
  assert.ok(id !== undefined, `actor ${externalId} stored`);
  return id;
}

/** A migration's statements, run as the migration runner would (comments dropped). */
async function runMigration(url: URL): Promise<void> {
  const sql = (await readFile(url, 'utf8')).replace(/^--.*$/gm, '');
  for (const statement of sql.split(';').map((s) => s.trim()))
    if (statement !== '') await t.db.query(statement);
}

describe('chat names actors by the shared Actor object only', () => {
  test('an API key posts as an actor: answers, lists, actions and events name the Actor, never its internal id', async () => {
    const tenant = await tenantWithRoom(t);
    const sent = await send(t, tenant.apiKey, tenant.roomId, { text: 'beep', actor: BOT });
    assert.equal(sent.statusCode, 201, sent.body);
    const message = sent.json<Message>();
    assert.deepEqual(message.author, BOT);
    const hidden = await internalId(tenant.tenantId, BOT.id);
    const url = `/v1/rooms/${tenant.roomId}/messages`;
    const bodies = [
      sent.body,
      (await call(t.app, { method: 'GET', url, headers: bearer(tenant.apiKey) })).body,
      (
        await call(t.app, {
          method: 'POST',
          url: `${url}/${message.id}/reactions/${encodeURIComponent('👍')}?actor=${BOT.id}`,
          headers: bearer(tenant.apiKey),
        })
      ).body,
      (
        await call(t.app, {
          method: 'PATCH',
          url: `${url}/${message.id}`,
          headers: bearer(tenant.apiKey),
          payload: { text: 'boop' },
        })
      ).body,
      (
        await call(t.app, {
          method: 'POST',
          url: '/v1/actions/list_messages',
          headers: bearer(tenant.apiKey),
          payload: { arguments: { roomId: tenant.roomId } },
        })
      ).body,
    ];
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=chat.*',
      headers: bearer(tenant.apiKey),
    });
    const written = events.json<{ data: { data: { message: Message } }[] }>().data;
    assert.equal(written.length, 3, 'created, reacted, edited');
    for (const event of written) assert.deepEqual(event.data.message.author, BOT);
    bodies.push(events.body);
    for (const body of bodies) assert.ok(!body.includes(hidden), `no internal actor id in ${body}`);
  });

  test("a session's events name its actor in their trace as the Actor object", async () => {
    const tenant = await tenantWithRoom(t);
    const session = await connectSession(t, tenant.apiKey, { actorId: 'test:ann' });
    assert.equal((await send(t, session.token, tenant.roomId, { text: 'hi' })).statusCode, 201);
    const hidden = await internalId(tenant.tenantId, 'test:ann');
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=chat.message.created',
      headers: bearer(tenant.apiKey),
    });
    const [event] = events.json<{ data: { trace: { actor: unknown } }[] }>().data;
    assert.deepEqual(event?.trace.actor, {
      kind: 'actor',
      type: 'end_user',
      id: 'test:ann',
      identityProvider: 'test',
    });
    assert.ok(!events.body.includes(hidden));
  });

  test('events written before answer the new shape once migrations 0063 and 0064 ran', async () => {
    const tenant = await tenantWithRoom(t);
    const session = await connectSession(t, tenant.apiKey, { actorId: 'test:old' });
    assert.equal((await send(t, session.token, tenant.roomId, { text: 'old' })).statusCode, 201);
    const hidden = await internalId(tenant.tenantId, 'test:old');
    // As an older version wrote them: the internal id beside the external one.
    const old = { id: hidden, type: 'end_user', externalId: 'test:old' };
    await t.db.query(
      `update events set trace = jsonb_set(trace, '{actor}', $2::jsonb),
                         data = jsonb_set(data, '{message,author}', $3::jsonb)
        where tenant_id = $1 and type = 'chat.message.created'`,
      [tenant.tenantId, JSON.stringify({ kind: 'actor', ...old }), JSON.stringify(old)],
    );
    await runMigration(new URL('../../../../migrations/0063_event_trace_actor.sql', import.meta.url));
    await runMigration(new URL('../migrations/0064_chat_event_authors.sql', import.meta.url));
    const events = await call(t.app, {
      method: 'GET',
      url: '/v1/events?type=chat.message.created',
      headers: bearer(tenant.apiKey),
    });
    const [event] = events.json<{ data: { data: { message: Message }; trace: { actor: unknown } }[] }>().data;
    const actor = { type: 'end_user', id: 'test:old', identityProvider: 'test' };
    assert.deepEqual(event?.trace.actor, { kind: 'actor', ...actor });
    assert.deepEqual(event?.data.message.author, actor);
    assert.ok(!events.body.includes(hidden));
  });
});
