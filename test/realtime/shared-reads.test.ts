import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SharedReads } from '../../src/core/realtime/shared-reads.ts';

/** A read whose answers the test gives: each start is recorded with the value it will answer. */
function gatedReads() {
  const started: Array<{ key: string; answer(value: number): void; fail(error: Error): void }> = [];
  let state = 0;
  return {
    started,
    /** What a read returns: the state when it was sent. */
    set(value: number) {
      state = value;
    },
    start(key: string) {
      return () => {
        const at = state;
        return new Promise<number>((resolve, reject) => {
          started.push({ key, answer: (extra) => resolve(at + extra), fail: reject });
        });
      };
    },
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Long enough for every read that may start to have started (a read starts in a turn after its ask). */
const settle = async () => {
  for (let i = 0; i < 3; i++) await turn();
};

describe('SharedReads: one read for the asks made before it starts', () => {
  test('asks of one key in one turn share one read; another key reads apart', async () => {
    const reads = new SharedReads<string, number>();
    const gate = gatedReads();
    const asks = Array.from({ length: 50 }, () => reads.read('room-a', gate.start('room-a')));
    const other = reads.read('room-b', gate.start('room-b'));
    await settle();
    assert.deepEqual(
      gate.started.map((s) => s.key),
      ['room-a', 'room-b'],
    );
    for (const s of gate.started) s.answer(s.key === 'room-a' ? 1 : 2);
    assert.deepEqual(new Set(await Promise.all(asks)), new Set([1]));
    assert.equal(await other, 2);
  });

  test('an ask made after a read started never gets it: it waits for the next, started after that one answered', async () => {
    const reads = new SharedReads<string, number>();
    const gate = gatedReads();
    const first = reads.ask('room', gate.start('room'));
    await settle();
    assert.equal(first.started, true);
    gate.set(10); // happened after the first read was sent
    const later = Array.from({ length: 20 }, () => reads.ask('room', gate.start('room')));
    await settle();
    assert.equal(gate.started.length, 1, 'the next read waits while the first has not answered');
    assert.equal(later[0]?.started, false);
    gate.started[0]?.answer(0);
    assert.equal(await first.value, 0);
    await settle();
    assert.equal(gate.started.length, 2, 'one more read for every later ask');
    gate.started[1]?.answer(0);
    for (const ask of later)
      assert.equal(await ask.value, 10, 'the later asks see what happened before them');
  });

  test('an error reaches every ask of its read; the next ask reads again', async () => {
    const reads = new SharedReads<string, number>();
    const gate = gatedReads();
    const asks = [reads.read('room', gate.start('room')), reads.read('room', gate.start('room'))];
    await settle();
    gate.started[0]?.fail(new Error('the database is gone'));
    for (const ask of asks) await assert.rejects(ask, /the database is gone/);
    const again = reads.read('room', gate.start('room'));
    await settle();
    assert.equal(gate.started.length, 2);
    gate.started[1]?.answer(5);
    assert.equal(await again, 5);
  });

  test('a read that throws at once fails its asks and leaves the key usable', async () => {
    const reads = new SharedReads<string, number>();
    const failing = reads.read('room', () => {
      throw new Error('bad start');
    });
    await assert.rejects(failing, /bad start/);
    assert.equal(await reads.read('room', async () => 7), 7);
  });
});
