import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { type ChatFrame, TestClient } from './client.ts';
import { deleteMessage, editMessage, postMessage, react, sessionToken, tenantWithRoom } from './fixtures.ts';
import { resumeInstance, settle, summary } from './resume-support.ts';

describe('resume by change number: edits, reactions and deletions made while away', () => {
  const instance = resumeInstance();

  test('edits, reactions and deletions made while away come on resume by changeSeq, in order, once', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    const joined = await first.join(room);
    assert.equal(joined.changeSeq, 0);
    const m1 = await postMessage(t, tenant.apiKey, room, 'one');
    const m2 = await postMessage(t, tenant.apiKey, room, 'two');
    const m3 = await postMessage(t, tenant.apiKey, room, 'three');
    await eventually('three messages', () => first.changes(room).length === 3 || undefined);
    assert.deepEqual(
      first.changes(room).map((f) => [f.type, f.message.seq, f.changeSeq]),
      [
        ['chat.message', 1, 1],
        ['chat.message', 2, 2],
        ['chat.message', 3, 3],
      ],
      'every chat frame carries the change number to resume from',
    );
    const resumeFrom = first.lastChange(room);
    await first.close();

    await editMessage(t, tenant.apiKey, room, m1.id, 'one, edited'); // change 4
    await deleteMessage(t, tenant.apiKey, room, m2.id); // 5
    const m4 = await postMessage(t, tenant.apiKey, room, 'four'); // 6
    await editMessage(t, tenant.apiKey, room, m4.id, 'four, edited'); // 7: already in the frame of 6
    await react(t, tenant.apiKey, room, m3.id, '🎉'); // 8

    const second = await TestClient.connect(t.wsUrl, token);
    const rejoined = await second.join(room, { changeSeq: resumeFrom });
    assert.deepEqual([rejoined.seq, rejoined.changeSeq], [4, 8]);
    await eventually('the four missed changes', () => second.changes(room).length === 4 || undefined);
    await editMessage(t, tenant.apiKey, room, m3.id, 'three, edited live'); // 9
    await eventually('the live change', () => second.changes(room).length === 5 || undefined);
    await settle(second);
    const got = second.changes(room);
    assert.deepEqual(
      summary(got),
      [
        ['chat.updated', m1.id, 4],
        ['chat.deleted', m2.id, 5],
        ['chat.message', m4.id, 6],
        ['chat.updated', m3.id, 8],
        ['chat.updated', m3.id, 9],
      ],
      'every missed change once, in change order, then live',
    );
    assert.deepEqual(
      got.map((f) => [f.message.text, f.message.revision]),
      [
        ['one, edited', 1],
        ['', 1],
        ['four, edited', 1],
        ['three', 1],
        ['three, edited live', 2],
      ],
    );
    assert.equal(typeof got[1]?.message.deletedAt, 'string');
    assert.deepEqual(got[3]?.message.reactions, [{ emoji: '🎉', count: 1 }]);
    const joinedAt = second.frames.findIndex((f) => f.type === 'joined');
    const firstChangeAt = second.frames.findIndex((f) => f.type.startsWith('chat.'));
    assert.ok(joinedAt < firstChangeAt, 'joined comes before the replay');

    // The last frame says where to resume again: only what came after it is sent.
    const again = second.lastChange(room);
    await second.close();
    await deleteMessage(t, tenant.apiKey, room, m4.id); // 10
    const third = await TestClient.connect(t.wsUrl, token);
    await third.join(room, { changeSeq: again });
    await eventually('the deletion', () => third.changes(room).length >= 1 || undefined);
    await settle(third);
    assert.deepEqual(summary(third.changes(room)), [['chat.deleted', m4.id, 10]]);
    await third.close();
  });

  test('a message edited then deleted while away comes once, deleted; its old texts are not sent', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(room);
    const secret = await postMessage(t, tenant.apiKey, room, 'my number is 555-0100');
    await first.waitForType('chat.message');
    const resumeFrom = first.lastChange(room);
    await first.close();
    await editMessage(t, tenant.apiKey, room, secret.id, 'my number is 555-0199');
    await deleteMessage(t, tenant.apiKey, room, secret.id);

    const second = await TestClient.connect(t.wsUrl, token);
    await second.join(room, { changeSeq: resumeFrom });
    await second.waitForType('chat.deleted');
    await settle(second);
    assert.deepEqual(summary(second.changes(room)), [['chat.deleted', secret.id, 2]]);
    assert.equal(second.changes(room)[0]?.message.revision, 2);
    assert.doesNotMatch(JSON.stringify(second.frames), /555-01/, 'no edited or deleted text');
    await second.close();
  });

  test('a resume across pages while changes keep coming: change order, nothing twice, nothing lost', async () => {
    const t = instance();
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(room);
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push((await postMessage(t, tenant.apiKey, room, `m${i}`)).id);
    await eventually('six messages', () => first.changes(room).length === 6 || undefined);
    const resumeFrom = first.lastChange(room);
    await first.close();

    const pick = (i: number) => ids[i % ids.length] ?? '';
    for (let i = 0; i < 12; i++) {
      await editMessage(t, tenant.apiKey, room, pick(i), `edit ${i}`);
      if (i % 3 === 0) ids.push((await postMessage(t, tenant.apiKey, room, `new ${i}`)).id);
    }
    await deleteMessage(t, tenant.apiKey, room, pick(1));
    const second = await TestClient.connect(t.wsUrl, token);
    // Changes keep coming while the client resumes (replay pages hold 7 changes).
    const during = Array.from({ length: 8 }, (_, i) =>
      editMessage(t, tenant.apiKey, room, pick(i + 2), `during ${i}`),
    );
    await second.join(room, { changeSeq: resumeFrom });
    await Promise.all(during);
    const last = await postMessage(t, tenant.apiKey, room, 'last');
    await second.waitFor(
      (f) => f.type === 'chat.message' && (f.message as { id: string }).id === last.id,
      'the last message',
    );
    await settle(second);

    const got = second.changes(room);
    const numbers = got.map((f) => f.changeSeq);
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'change order',
    );
    assert.equal(new Set(numbers).size, numbers.length, 'no change twice');
    assert.ok(numbers.every((n) => n > resumeFrom));
    const revisions = new Map<string, number>();
    for (const f of got) {
      const before = revisions.get(f.message.id) ?? -1;
      assert.ok(f.message.revision > before, `message ${f.message.id}: revision ${f.message.revision} again`);
      revisions.set(f.message.id, f.message.revision);
    }
    assert.deepEqual(
      got.filter((f) => f.type === 'chat.message').map((f) => f.message.seq),
      Array.from({ length: ids.length - 6 + 1 }, (_, i) => 7 + i),
      'every message created while away or since, once, in seq order',
    );
    // Kept copies (highest revision) match the database: nothing lost.
    const history = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${room}/messages?limit=100`,
      headers: bearer(tenant.apiKey),
    });
    const stored = history.json<{ data: ChatFrame['message'][] }>().data;
    for (const message of stored) {
      const kept = got.filter((f) => f.message.id === message.id).at(-1)?.message;
      if (message.revision === 0 && message.seq <= 6) {
        assert.equal(kept, undefined, `message ${message.seq} did not change`);
        continue;
      }
      assert.deepEqual(
        [kept?.text, kept?.revision, kept?.deletedAt],
        [message.text, message.revision, message.deletedAt],
        `message ${message.seq}`,
      );
    }
    await second.close();
  });
});
