import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { systemClock } from '../../src/core/clock.ts';
import { systemTx } from '../../src/core/db/tenant-tx.ts';
import { activeRetention, retentionRules } from '../../src/core/retention/rules.ts';
import { RetentionWorker } from '../../src/core/retention/worker.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { deleteMessage, editMessage, postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { resumeInstance, settle, summary } from './resume-support.ts';

describe('resume by message number, and the joins it refuses', () => {
  const instance = resumeInstance();

  test('a client that reconnects with its last seq gets what it missed, then live, nothing twice', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(room);
    for (let i = 1; i <= 5; i++) await postMessage(t, tenant.apiKey, room, `before ${i}`);
    await eventually('five messages', () => first.messages(room).length === 5 || undefined);
    const lastSeen = Math.max(...first.messages(room).map((m) => m.seq));
    await first.close();

    for (let i = 1; i <= 30; i++) await postMessage(t, tenant.apiKey, room, `missed ${i}`);
    const second = await TestClient.connect(t.wsUrl, token);
    // Messages keep coming while the client resumes: they must neither be lost nor doubled.
    const during = Array.from({ length: 10 }, (_, i) => postMessage(t, tenant.apiKey, room, `during ${i}`));
    const joined = await second.join(room, { seq: lastSeen });
    await Promise.all(during);
    for (let i = 1; i <= 5; i++) await postMessage(t, tenant.apiKey, room, `after ${i}`);
    const total = 50;
    await eventually(
      'the newest message on the resumed socket',
      () => second.messages(room).some((m) => m.seq === total) || undefined,
    );
    assert.ok(typeof joined.seq === 'number' && joined.seq >= 35);
    assert.deepEqual(
      second.messages(room).map((m) => m.seq),
      Array.from({ length: total - lastSeen }, (_, i) => lastSeen + i + 1),
      'every message after the last one seen, once each, in order',
    );
    const joinedAt = second.frames.findIndex((f) => f.type === 'joined');
    const firstMessageAt = second.frames.findIndex((f) => f.type === 'chat.message');
    assert.ok(joinedAt < firstMessageAt, 'joined comes before the replay');
    await second.close();
  });

  test('a join without seq starts at the newest message; a seq from the future is refused', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    for (let i = 1; i <= 3; i++) await postMessage(t, tenant.apiKey, room, `old ${i}`);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    const joined = await client.join(room);
    assert.equal(joined.seq, 3);
    await postMessage(t, tenant.apiKey, room, 'new');
    await client.waitForType('chat.message');
    assert.deepEqual(
      client.messages(room).map((m) => m.seq),
      [4],
    );
    const other = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    other.send({ type: 'join', room, seq: 99, ref: 'future' });
    const refused = await other.waitFor((f) => f.ref === 'future', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'invalid_request');
    // The refused join left nothing behind: the same room can be joined.
    const rejoined = await other.join(room, { seq: 0 });
    assert.equal(rejoined.seq, 4);
    await eventually('the whole history from seq 0', () => other.messages(room).length === 4 || undefined);
    await client.close();
    await other.close();
  });

  test('a client that resumes by seq only (the older protocol) also gets the edits and deletions', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(room);
    const m1 = await postMessage(t, tenant.apiKey, room, 'one');
    const m2 = await postMessage(t, tenant.apiKey, room, 'two');
    await eventually('two messages', () => first.messages(room).length === 2 || undefined);
    await first.close();
    await editMessage(t, tenant.apiKey, room, m1.id, 'one, edited');
    const m3 = await postMessage(t, tenant.apiKey, room, 'three');
    await deleteMessage(t, tenant.apiKey, room, m2.id);

    const second = await TestClient.connect(t.wsUrl, token);
    await second.join(room, { seq: 2 });
    await eventually('three changes', () => second.changes(room).length === 3 || undefined);
    await settle(second);
    assert.deepEqual(summary(second.changes(room)), [
      ['chat.updated', m1.id, 3],
      ['chat.message', m3.id, 4],
      ['chat.deleted', m2.id, 5],
    ]);
    await second.close();
  });

  test('a changeSeq from the future is refused with a clear error', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    await postMessage(t, tenant.apiKey, room, 'only');
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    client.send({ type: 'join', room, changeSeq: 5, ref: 'future' });
    const refused = await client.waitFor((f) => f.ref === 'future', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'invalid_request');
    assert.deepEqual(refused.details, [
      { field: '/frame/changeSeq', message: 'must be at most 1', code: 'unknown_change' },
    ]);
    client.send({ type: 'join', room, changeSeq: -1, ref: 'negative' });
    const invalid = await client.waitFor((f) => f.ref === 'negative', 'the refusal');
    assert.equal(invalid.code, 'invalid_frame');
    await client.close();
  });

  test('resuming from a change that retention deleted is refused with resync_required; later ones resume', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    for (let i = 1; i <= 6; i++) await postMessage(t, tenant.apiKey, room, `message ${i}`);
    // Changes 1-3 are older than the chat_changes retention (7 days), 4-6 are not.
    await systemTx(t.db, (tx) =>
      tx.query(
        `update chat_changes set created_at = created_at - interval '8 days'
          where tenant_id = $1 and room_id = $2 and change_seq <= 3`,
        [tenant.tenantId, room],
      ),
    );
    const retention = new RetentionWorker({
      db: t.db,
      clock: systemClock,
      rules: activeRetention(retentionRules(MODULES), t.config.retention),
      intervalMs: 3_600_000,
      tenantIds: [tenant.tenantId],
    });
    assert.equal((await retention.pass()).ran, true);

    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    client.send({ type: 'join', room, changeSeq: 1, ref: 'stale' });
    const refused = await client.waitFor((f) => f.ref === 'stale', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'invalid_request');
    assert.match(
      String(refused.message),
      /no longer has the changes after 1 \(changes are kept for 7 days\)/,
    );
    assert.deepEqual(refused.details, [
      {
        field: '/frame/changeSeq',
        message: 'the changes after it are no longer kept',
        code: 'resync_required',
      },
    ]);
    // By message number too: message 2 was made by change 2, and change 3 is gone.
    client.send({ type: 'join', room, seq: 2, ref: 'stale-seq' });
    const refusedSeq = await client.waitFor((f) => f.ref === 'stale-seq', 'the refusal');
    assert.deepEqual(refusedSeq.details, [
      { field: '/frame/seq', message: 'the changes after it are no longer kept', code: 'resync_required' },
    ]);

    // From change 3 on, every later change is there: the resume goes ahead.
    await client.join(room, { changeSeq: 3 });
    await eventually('messages 4 to 6', () => client.messages(room).length === 3 || undefined);
    assert.deepEqual(
      client.messages(room).map((m) => m.seq),
      [4, 5, 6],
    );
    await client.close();
  });
});
