import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import type { ModuleManifest } from '../../src/core/modules/manifest.ts';
import { presenceRealtime } from '../../src/modules/presence/realtime.ts';
import { createTestTenant } from '../factories.ts';
import { type Frame, TestClient } from './client.ts';
import { createRoom, sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

/**
 * `presence.diff` (the `join` field `presenceDiff`) over real sockets. The diff tick is held by the test:
 * a room's changes wait until `release()`, so what one tick folds is what the test did before it. A watcher
 * that did not ask for diffs gets each change at once, which tells the test the room has received it.
 */
const held: (() => void)[] = [];
const release = () => {
  for (const flush of held.splice(0)) flush();
};
const modules: ModuleManifest[] = MODULES.map((m) =>
  m.name === 'presence'
    ? { ...m, hooks: () => ({ realtime: presenceRealtime({ diffTick: (flush) => held.push(flush) }) }) }
    : m,
);

interface Diff {
  room: string;
  joins: { actor: { id: string }; state: Record<string, unknown> }[];
  updates: { actor: { id: string }; state: Record<string, unknown> }[];
  leaves: { id: string }[];
}

const diffs = (client: TestClient, room: string) =>
  client.of('presence.diff').filter((f) => f.room === room) as unknown as Diff[];
const actorIds = (members: { actor: { id: string } }[]) => members.map((m) => m.actor.id);
const memberId = (f: Frame) => (f.member as { actor: { id: string } }).actor.id;

let t: Instance;
before(async () => {
  t = await startInstance({ modules });
});
after(async () => t.close());

/** A room with a watcher that asked for diffs and one that did not, both joined and settled. */
async function watchedRoom() {
  const tenant = await tenantWithRoom(t);
  const room = tenant.roomId;
  const token = (actorId: string) => sessionToken(t, tenant.apiKey, { actorId });
  const differ = await TestClient.connect(t.wsUrl, await token('test:differ'));
  const single = await TestClient.connect(t.wsUrl, await token('test:single'));
  await differ.join(room, { presenceDiff: true });
  await single.join(room);
  // Its own join comes after the other's on the room's channel: both are in the tick released here.
  await single.waitForType('presence.join', (f) => memberId(f) === 'test:single');
  release();
  await differ.waitForType('presence.diff', (f) =>
    actorIds(f.joins as Diff['joins']).includes('test:single'),
  );
  return { tenant, room, differ, single, token, clients: [differ, single] };
}

describe('presence.diff: presence changes batched per room per tick, for joins that ask', () => {
  test('one diff per tick holds every join; members that did not ask get one frame per join', async () => {
    const { tenant, room, differ, single, token, clients } = await watchedRoom();
    const blind = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, tenant.apiKey, { modules: ['rooms', 'chat'] }),
    );
    await blind.join(room, { presenceDiff: true });
    const before = diffs(differ, room).length;
    const ids = ['test:d1', 'test:d2', 'test:d3'];
    for (const actorId of ids) {
      const client = await TestClient.connect(t.wsUrl, await token(actorId));
      await client.join(room, { presence: { n: actorId } });
      clients.push(client);
    }
    for (const actorId of ids)
      await single.waitFor((f) => f.type === 'presence.join' && memberId(f) === actorId, actorId);
    assert.equal(diffs(differ, room).length, before, 'nothing before the tick ends');
    release();
    const diff = await differ.waitFor(
      (f) => f.type === 'presence.diff' && diffs(differ, room).length > before,
      'the diff',
    );
    assert.deepEqual(Object.keys(diff), ['type', 'room', 'joins', 'updates', 'leaves']);
    const [only, ...more] = diffs(differ, room).slice(before);
    assert.equal(more.length, 0, 'one diff for the tick');
    assert.deepEqual(actorIds(only?.joins ?? []), ids, 'every join of the tick, in order');
    assert.deepEqual(
      only?.joins.map((m) => m.state),
      ids.map((n) => ({ n })),
    );
    assert.deepEqual([only?.updates, only?.leaves], [[], []]);
    assert.equal(single.of('presence.diff').length, 0, 'no diff to a member that did not ask');
    assert.equal(differ.of('presence.join').length, 0, 'no single frame to one that did');
    assert.equal(
      blind.frames.filter((f) => f.type.startsWith('presence.')).length,
      0,
      'no presence:read, nothing',
    );
    await Promise.all([...clients, blind].map((c) => c.close()));
  });

  test('a join then a leave in one tick is a leave; a join then an update is a join with the new state', async () => {
    const { room, differ, single, token, clients } = await watchedRoom();
    const before = diffs(differ, room).length;
    const passer = await TestClient.connect(t.wsUrl, await token('test:passer'));
    await passer.join(room);
    const stayer = await TestClient.connect(t.wsUrl, await token('test:stayer'));
    await stayer.join(room, { presence: { step: 1 } });
    stayer.send({ type: 'presence', room, state: { step: 2 } });
    await passer.close();
    await single.waitForType('presence.leave', (f) => (f.actor as { id: string }).id === 'test:passer');
    await single.waitForType('presence.update', (f) => memberId(f) === 'test:stayer');
    release();
    await differ.waitFor(() => diffs(differ, room).length > before, 'the diff');
    const [diff, ...more] = diffs(differ, room).slice(before);
    assert.equal(more.length, 0);
    assert.deepEqual(actorIds(diff?.joins ?? []), ['test:stayer']);
    assert.deepEqual(diff?.joins[0]?.state, { step: 2 });
    assert.deepEqual(diff?.updates, []);
    assert.deepEqual(diff?.leaves, [{ type: 'end_user', id: 'test:passer', identityProvider: 'test' }]);
    // The next tick: an update of a member the client has is an update; its leave, a leave.
    stayer.send({ type: 'presence', room, state: { step: 3 } });
    await single.waitForType(
      'presence.update',
      (f) => (f.member as { state: { step: number } }).state.step === 3,
    );
    release();
    await differ.waitFor(() => diffs(differ, room).length > before + 1, 'the second diff');
    const second = diffs(differ, room)[before + 1];
    assert.deepEqual(
      [second?.joins, actorIds(second?.updates ?? []), second?.leaves],
      [[], ['test:stayer'], []],
    );
    await Promise.all([...clients, stayer].map((c) => c.close()));
  });

  test('two rooms are two diffs; another tenant with a room of the same id sees none of it', async () => {
    const { tenant, room, differ, single, token, clients } = await watchedRoom();
    const second = await createRoom(t, tenant.apiKey);
    await differ.join(second, { presenceDiff: true });
    await single.join(second);
    await single.waitFor(
      (f) => f.room === second && f.type === 'presence.join' && memberId(f) === 'test:single',
      'own join',
    );
    const other = await createTestTenant(t);
    await createRoom(t, other.apiKey, room);
    const outsider = await TestClient.connect(t.wsUrl, await sessionToken(t, other.apiKey));
    await outsider.join(room, { presenceDiff: true });
    const marker = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, other.apiKey, { actorId: 'test:marker' }),
    );
    await marker.join(room);
    await marker.waitForType('presence.join', (f) => memberId(f) === 'test:marker');
    release();
    await differ.waitFor(
      (f) => f.room === second && actorIds((f.joins ?? []) as Diff['joins']).includes('test:single'),
      'the second room settled',
    );
    const before = [diffs(differ, room).length, diffs(differ, second).length];
    const outsiderBefore = outsider.of('presence.diff').length;
    const inFirst = await TestClient.connect(t.wsUrl, await token('test:first'));
    const inSecond = await TestClient.connect(t.wsUrl, await token('test:second'));
    await inFirst.join(room);
    await inSecond.join(second);
    await single.waitForType('presence.join', (f) => memberId(f) === 'test:first');
    await single.waitForType('presence.join', (f) => memberId(f) === 'test:second');
    release();
    await differ.waitFor(() => diffs(differ, second).length > (before[1] ?? 0), 'the second room diff');
    await differ.waitFor(() => diffs(differ, room).length > (before[0] ?? 0), 'the first room diff');
    assert.deepEqual(actorIds(diffs(differ, room).at(-1)?.joins ?? []), ['test:first']);
    assert.deepEqual(actorIds(diffs(differ, second).at(-1)?.joins ?? []), ['test:second']);
    // The outsider's room (same id, other tenant) has its own changes only: one now comes in a diff.
    marker.send({ type: 'presence', room, state: { here: true } });
    await marker.waitForType('presence.update');
    release();
    await outsider.waitFor(() => outsider.of('presence.diff').length > outsiderBefore, 'the outsider diff');
    const seen = (outsider.of('presence.diff') as unknown as Diff[]).flatMap((d) => actorIds(d.joins));
    assert.ok(!seen.includes('test:first') && !seen.includes('test:second'), `another tenant saw ${seen}`);
    await Promise.all([...clients, inFirst, inSecond, outsider, marker].map((c) => c.close()));
  });

  test('a presenceDiff that is not a boolean is refused with invalid_frame, and nothing is joined', async () => {
    const tenant = await tenantWithRoom(t);
    const client = await TestClient.connect(t.wsUrl, await sessionToken(t, tenant.apiKey));
    client.send({ type: 'join', room: tenant.roomId, presenceDiff: 'yes', ref: 'bad' });
    const refused = await client.waitFor((f) => f.ref === 'bad', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'invalid_frame');
    assert.match(String(refused.message), /\/frame\/presenceDiff/);
    // Not a member: the same join with a boolean then succeeds (an already_joined refusal would say otherwise).
    const joined = await client.join(tenant.roomId, { presenceDiff: false });
    assert.equal(joined.type, 'joined');
    await client.close();
  });

  test("docs/realtime.md's presence.diff example is what the service sends for its story", async () => {
    const { room, differ, single, token, clients } = await watchedRoom();
    const bob = await TestClient.connect(t.wsUrl, await token('test:bob'));
    await bob.join(room);
    await single.waitForType('presence.join', (f) => memberId(f) === 'test:bob');
    release();
    await differ.waitForType('presence.diff', (f) => actorIds(f.joins as Diff['joins']).includes('test:bob'));
    const before = diffs(differ, room).length;
    const carol = await TestClient.connect(t.wsUrl, await token('test:carol'));
    await carol.join(room);
    bob.send({ type: 'presence', room, state: { status: 'away' } });
    const dan = await TestClient.connect(t.wsUrl, await token('test:dan'));
    await dan.join(room);
    await dan.close();
    await single.waitForType('presence.leave', (f) => (f.actor as { id: string }).id === 'test:dan');
    await single.waitForType('presence.update', (f) => memberId(f) === 'test:bob');
    release();
    await differ.waitFor(() => diffs(differ, room).length > before, 'the diff');
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/realtime.md'), 'utf8');
    const example = /^< (\{"type":"presence\.diff".*)$/m.exec(doc)?.[1];
    assert.ok(example !== undefined, 'the page shows a presence.diff frame');
    // Ids, providers, times and the room are the example's own; the rest must be the same, keys in order.
    const normal = (frame: unknown) =>
      JSON.stringify(frame, (key, value) =>
        key === 'id'
          ? String(value).replace(/^[a-z]+:/, '')
          : key === 'identityProvider'
            ? 'p'
            : /At$/.test(key)
              ? 'T'
              : key === 'room'
                ? 'R'
                : value,
      );
    assert.equal(normal(diffs(differ, room)[before]), normal(JSON.parse(example)));
    await Promise.all([...clients, bob, carol].map((c) => c.close()));
  });
});
