import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { bearer, connectSession } from '../../../../test/factories.ts';
import { call, type TestApp } from '../../../../test/helper.ts';
import { BOT, chatSuite, type Message, send, tenantWithRoom } from './support.ts';

const chat = chatSuite();

/** The actor's internal row id, which the API must never show. */
async function internalId(tenantId: string, externalId: string): Promise<string> {
  const { rows } = await chat
    .app()
    .db.query<{ id: string }>('select id::text as id from actors where tenant_id = $1 and external_id = $2', [
      tenantId,
      externalId,
    ]);
  const id = rows[0]?.id;
  assert.ok(id !== undefined, `actor ${externalId} stored`);
  return id;
}

/** A new room with one message a session of `actorId` sent; the actor's internal id. */
async function sentBySession(t: TestApp, actorId: string) {
  const tenant = await tenantWithRoom(t);
  const session = await connectSession(t, tenant.apiKey, { actorId });
  assert.equal((await send(t, session.token, tenant.roomId, { text: 'hi' })).statusCode, 201);
  return { tenant, hidden: await internalId(tenant.tenantId, actorId) };
}

const createdEvents = (t: TestApp, apiKey: string) =>
  call(t.app, { method: 'GET', url: '/v1/events?type=chat.message.created', headers: bearer(apiKey) });

/** A migration's statements, run as the migration runner would (comments dropped). */
async function runMigration(url: URL): Promise<void> {
  const sql = (await readFile(url, 'utf8')).replace(/^--.*$/gm, '');
  for (const statement of sql.split(';').map((s) => s.trim()))
    if (statement !== '') await chat.app().db.query(statement);
}

describe('chat names actors by the shared Actor object only', () => {
  test('an API key posts as an actor: answers, lists, actions and events name the Actor, never its internal id', async () => {
    const { t, tenant } = await chat.room();
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
    const t = chat.app();
    const { tenant, hidden } = await sentBySession(t, 'test:ann');
    const events = await createdEvents(t, tenant.apiKey);
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
    const t = chat.app();
    const { tenant, hidden } = await sentBySession(t, 'test:old');
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
    const events = await createdEvents(t, tenant.apiKey);
    const [event] = events.json<{ data: { data: { message: Message }; trace: { actor: unknown } }[] }>().data;
    const actor = { type: 'end_user', id: 'test:old', identityProvider: 'test' };
    assert.deepEqual(event?.trace.actor, { kind: 'actor', ...actor });
    assert.deepEqual(event?.data.message.author, actor);
    assert.ok(!events.body.includes(hidden));
  });
});
