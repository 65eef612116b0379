import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { roomKey } from '../../src/core/realtime/names.ts';
import type { ExpiredLeave } from '../../src/core/realtime/presence.ts';
import { eventually } from '../support/eventually.ts';
import { BACKEND_KINDS, type Backend, makeBackend, skipFor, TEST_TTL_MS } from './backends.ts';

const room = roomKey('ten_one', 'room_one');

for (const kind of BACKEND_KINDS) {
  describe(`Presence expiry (${kind})`, { skip: skipFor(kind) }, () => {
    let backend: Backend;

    beforeEach(() => {
      backend = makeBackend(kind);
    });
    afterEach(async () => {
      assert.deepEqual(backend.errors.errors, []);
      await backend.close();
    });

    test('an instance that stops heartbeating loses its members; the survivor announces each leave', async () => {
      const dying = backend.presence('inst-dying');
      const survivor = backend.presence('inst-survivor');
      dying.start();
      survivor.start();
      const announced: ExpiredLeave[] = [];
      let announcedAt = 0;
      survivor.onExpiredLeave((leave) => {
        announced.push(leave);
        announcedAt = backend.now();
      });
      await dying.join(room, 'act_gone', 'conn-1', { seat: 1 });
      await dying.join(room, 'act_shared', 'conn-2');
      await survivor.join(room, 'act_shared', 'conn-3');

      await dying.close(); // stops heartbeating, like a crashed process
      const stoppedAt = backend.now();
      assert.equal((await survivor.list(room)).length, 2, 'membership outlives the instance until expiry');

      await eventually('expired leave announced', () => announced.length > 0, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      // Let more sweeps run: a second announcement of the same leave would show up now.
      await backend.tick(TEST_TTL_MS / 2);
      assert.deepEqual(announced, [{ room, actor: 'act_gone', instanceId: 'inst-dying' }]);
      const members = await survivor.list(room);
      assert.deepEqual(
        members.map((m) => [m.actor, m.connections]),
        [['act_shared', 1]],
      );
      if (kind === 'memory') {
        // On the manual clock the bound is exact: announced within the TTL of the last heartbeat.
        assert.ok(announcedAt - stoppedAt <= TEST_TTL_MS, `announced ${announcedAt - stoppedAt} ms after`);
      }
    });

    test('two sweepers at once announce each expired member exactly once', async () => {
      const dying = backend.presence('inst-dying');
      const actors = Array.from({ length: 40 }, (_, i) => `act_${String(i).padStart(2, '0')}`);
      for (const actor of actors) await dying.join(room, actor, `conn-${actor}`);
      await dying.close();

      const sweepers = [backend.presence('inst-b'), backend.presence('inst-c')];
      const announced: string[] = [];
      for (const sweeper of sweepers) sweeper.onExpiredLeave((leave) => announced.push(leave.actor));
      const returned: string[] = [];
      await eventually(
        'all members expired',
        async () => {
          const results = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));
          for (const leaves of results) returned.push(...leaves.map((leave) => leave.actor));
          return returned.length >= actors.length;
        },
        { pause: (ms) => backend.tick(ms), timeoutMs: 10_000 },
      );
      await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));

      assert.deepEqual([...announced].sort(), actors);
      assert.deepEqual([...returned].sort(), actors);
      assert.deepEqual(await sweepers[0]?.list(room), []);
    });

    test('sweepers on timers on two instances also announce each leave once', async () => {
      const dying = backend.presence('inst-dying');
      await dying.join(room, 'act_ann', 'conn-1');
      await dying.join(room, 'act_bob', 'conn-2');
      await dying.close();
      const announced: string[] = [];
      for (const id of ['inst-b', 'inst-c']) {
        const sweeper = backend.presence(id);
        sweeper.onExpiredLeave((leave) => announced.push(leave.actor));
        sweeper.start();
      }
      await eventually('both leaves', () => announced.length >= 2, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      await backend.tick(TEST_TTL_MS / 2);
      assert.deepEqual([...announced].sort(), ['act_ann', 'act_bob']);
    });

    test('a heartbeating instance keeps its members through many sweeps', async () => {
      const alive = backend.presence('inst-alive');
      const sweeper = backend.presence('inst-sweeper');
      alive.start();
      sweeper.start();
      const announced: ExpiredLeave[] = [];
      sweeper.onExpiredLeave((leave) => announced.push(leave));
      await alive.join(room, 'act_ann', 'conn-1');

      for (let elapsed = 0; elapsed < TEST_TTL_MS * 2; elapsed += 50) await backend.tick(50);
      assert.deepEqual(announced, []);
      assert.deepEqual(
        (await sweeper.list(room)).map((m) => m.actor),
        ['act_ann'],
      );
    });

    test('an instance swept while stalled learns it was evicted on its next heartbeat', async () => {
      const stalled = backend.presence('inst-stalled');
      const sweeper = backend.presence('inst-sweeper');
      let evictions = 0;
      stalled.onEvicted(() => {
        evictions++;
      });
      await stalled.join(room, 'act_ann', 'conn-1');
      await stalled.heartbeat();
      assert.equal(evictions, 0, 'a normal heartbeat is no eviction');

      await eventually('stalled instance swept', async () => (await sweeper.sweep()).length > 0, {
        pause: (ms) => backend.tick(ms),
        timeoutMs: 10_000,
      });
      assert.equal(evictions, 0);
      await stalled.heartbeat();
      assert.equal(evictions, 1);
      const rejoined = await stalled.join(room, 'act_ann', 'conn-1');
      assert.equal(rejoined.joined, true, 'its connections must join again');
      assert.equal(evictions, 1);
    });
  });
}
