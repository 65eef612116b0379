import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { roomKey } from '../../src/core/realtime/names.ts';
import type { PresenceStore } from '../../src/core/realtime/presence.ts';
import { BACKEND_KINDS, type Backend, makeBackend, skipFor } from './backends.ts';

for (const kind of BACKEND_KINDS) {
  describe(`PresenceStore contract (${kind})`, { skip: skipFor(kind) }, () => {
    let backend: Backend;
    let instanceA: PresenceStore;
    let instanceB: PresenceStore;
    const room = roomKey('ten_one', 'room_one');

    beforeEach(() => {
      backend = makeBackend(kind);
      instanceA = backend.presence('inst-a');
      instanceB = backend.presence('inst-b');
    });
    afterEach(async () => {
      assert.deepEqual(backend.errors.errors, []);
      await backend.close();
    });

    test('two connections of one actor are one member with a count; it leaves on the last', async () => {
      const first = await instanceA.join(room, 'act_ann', 'conn-1', { status: 'online' });
      assert.equal(first.joined, true);
      assert.deepEqual(first.member.state, { status: 'online' });
      assert.equal(first.member.connections, 1);

      const second = await instanceA.join(room, 'act_ann', 'conn-2');
      assert.equal(second.joined, false);
      assert.equal(second.member.connections, 2);
      assert.deepEqual(second.member.state, { status: 'online' }, 'a join without state keeps it');

      const listed = await instanceB.list(room);
      assert.equal(listed.length, 1);
      assert.equal(listed[0]?.actor, 'act_ann');
      assert.equal(listed[0]?.connections, 2);

      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-1'), false);
      assert.equal((await instanceA.list(room))[0]?.connections, 1);
      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-2'), true);
      assert.deepEqual(await instanceA.list(room), []);
    });

    test('connections of one actor on two instances count together', async () => {
      await instanceA.join(room, 'act_ann', 'conn-a');
      const onB = await instanceB.join(room, 'act_ann', 'conn-b');
      assert.equal(onB.joined, false);
      assert.equal(onB.member.connections, 2);
      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-a'), false);
      assert.equal(await instanceB.leave(room, 'act_ann', 'conn-b'), true);
    });

    test('joining again with a known connection id counts it once; unknown leaves change nothing', async () => {
      await instanceA.join(room, 'act_ann', 'conn-1');
      const again = await instanceA.join(room, 'act_ann', 'conn-1');
      assert.equal(again.joined, false);
      assert.equal(again.member.connections, 1);
      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-unknown'), false);
      assert.equal(await instanceA.leave(room, 'act_bob', 'conn-1'), false);
      assert.equal((await instanceA.list(room)).length, 1);
      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-1'), true);
      assert.equal(await instanceA.leave(room, 'act_ann', 'conn-1'), false, 'a second leave is a no-op');
    });

    test('update replaces the state, keeps joinedAt, and refuses non-members', async () => {
      const { member } = await instanceA.join(room, 'act_ann', 'conn-1', { typing: false });
      await backend.tick(5);
      const updated = await instanceB.update(room, 'act_ann', { typing: true, cursor: { x: 1, y: 2 } });
      assert.deepEqual(updated?.state, { typing: true, cursor: { x: 1, y: 2 } });
      assert.equal(updated?.joinedAt, member.joinedAt);
      assert.ok((updated?.updatedAt ?? 0) > member.updatedAt, 'updatedAt comes from the clock');
      assert.equal(updated?.connections, 1);
      assert.deepEqual((await instanceA.list(room))[0]?.state, { typing: true, cursor: { x: 1, y: 2 } });

      assert.equal(await instanceA.update(room, 'act_nobody', { typing: true }), undefined);
      assert.deepEqual(
        (await instanceA.list(room)).map((m) => m.actor),
        ['act_ann'],
      );
      const rejoined = await instanceA.join(room, 'act_ann', 'conn-2', { typing: 'again' });
      assert.deepEqual(rejoined.member.state, { typing: 'again' }, 'a join with state replaces it');
    });

    test('state survives the store exactly (empty arrays and objects, long numbers, escapes)', async () => {
      const state = {
        empty: [],
        nothing: {},
        big: 9007199254740991,
        fraction: 0.1 + 0.2,
        text: 'a/b "q" \\ ü \u2028 😀',
        nested: [[], [{}], null, false],
      };
      const { member } = await instanceA.join(room, 'act_ann', 'conn-1', state);
      assert.deepEqual(member.state, state);
      assert.deepEqual((await instanceB.list(room))[0]?.state, state);
      await instanceA.update(room, 'act_ann', state);
      assert.deepEqual((await instanceB.list(room))[0]?.state, state);
    });

    test('list orders by joinedAt and keeps rooms (and tenants) apart', async () => {
      const otherTenant = roomKey('ten_two', 'room_one');
      await instanceA.join(room, 'act_zed', 'conn-1');
      await backend.tick(5);
      await instanceB.join(room, 'act_amy', 'conn-2');
      await instanceA.join(otherTenant, 'act_other', 'conn-3');

      assert.deepEqual(
        (await instanceA.list(room)).map((m) => m.actor),
        ['act_zed', 'act_amy'],
      );
      assert.deepEqual(
        (await instanceA.list(otherTenant)).map((m) => m.actor),
        ['act_other'],
      );
      assert.deepEqual(await instanceA.list(roomKey('ten_one', 'room_empty')), []);
    });

    test('rejects empty actor or connection ids', async () => {
      await assert.rejects(instanceA.join(room, '', 'conn-1'), RangeError);
      await assert.rejects(instanceA.join(room, 'act_ann', ''), RangeError);
    });
  });
}
