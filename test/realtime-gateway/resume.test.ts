import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, TestClient } from './client.ts';
import { postMessage, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  // Small replay pages, so a resume crosses several of them.
  t = await startInstance({ limits: { replayPageSize: 7 } });
});
after(async () => t.close());

describe('resume', () => {
  test('a client that reconnects with its last seq gets what it missed, then live, nothing twice', async () => {
    const tenant = await tenantWithRoom(t);
    const room = tenant.roomId;
    const token = await sessionToken(t, tenant.apiKey);
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(room);
    for (let i = 1; i <= 5; i++) await postMessage(t, tenant.apiKey, room, `before ${i}`);
    await eventually(() => first.messages(room).length === 5 || undefined, 'five messages');
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
      () => second.messages(room).some((m) => m.seq === total) || undefined,
      'the newest message on the resumed socket',
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
    await eventually(() => other.messages(room).length === 4 || undefined, 'the whole history from seq 0');
    await client.close();
    await other.close();
  });
});
