import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type FlushTiming, WriteCoalescer } from '../../src/surfaces/realtime/wire.ts';

/** A manual clock and a list of the callbacks the coalescer asked for, run when the test says. */
function manualTiming() {
  let now = 1_000;
  const pending: { fn: () => void; ms: number }[] = [];
  const timing: FlushTiming = {
    now: () => now,
    later: (fn, ms) => {
      pending.push({ fn, ms });
    },
  };
  return {
    timing,
    pending,
    advance(ms: number) {
      now += ms;
    },
    /** Runs the one callback asked for, and says after how long it was asked to run. */
    runNext(): number {
      const next = pending.shift();
      assert.ok(next !== undefined, 'a flush was scheduled');
      assert.equal(pending.length, 0, 'one flush at a time');
      next.fn();
      return next.ms;
    },
  };
}

/** A connection whose flush takes `costMs` of the manual clock, and which counts its flushes. */
function connection(clock: ReturnType<typeof manualTiming>, costMs: number) {
  const socket = {
    flushes: 0,
    flush() {
      socket.flushes += 1;
      clock.advance(costMs);
    },
  };
  return socket;
}

describe('WriteCoalescer', () => {
  test('cheap flushes: every turn with frames flushes in the next turn, without waiting', () => {
    const clock = manualTiming();
    const coalescer = new WriteCoalescer(clock.timing);
    const a = connection(clock, 0.01);
    for (let turn = 0; turn < 3; turn++) {
      coalescer.add(a);
      coalescer.add(a);
      assert.equal(clock.runNext(), 0);
    }
    assert.equal(a.flushes, 3);
  });

  test('after a flush that took t ms, the next waits t ms, and what was sent meanwhile leaves in one flush', () => {
    const clock = manualTiming();
    const coalescer = new WriteCoalescer(clock.timing);
    const sockets = Array.from({ length: 4 }, () => connection(clock, 2));
    for (const socket of sockets) coalescer.add(socket);
    assert.equal(clock.runNext(), 0, 'the first flush waits for nothing');
    // 4 sockets x 2 ms: the flush took 8 ms. Frames for every socket come in the turns after it.
    clock.advance(1);
    for (const socket of sockets) coalescer.add(socket);
    clock.advance(1);
    for (const socket of sockets) coalescer.add(socket);
    assert.equal(clock.runNext(), 7, 'rests for what the last flush took, less the 1 ms already passed');
    assert.deepEqual(
      sockets.map((s) => s.flushes),
      [2, 2, 2, 2],
      'the frames of both turns left in one flush per socket',
    );
  });

  test('the rest is at most 20 ms, however long a flush took', () => {
    const clock = manualTiming();
    const coalescer = new WriteCoalescer(clock.timing);
    const slow = connection(clock, 500);
    coalescer.add(slow);
    clock.runNext();
    coalescer.add(slow);
    assert.equal(clock.runNext(), 20);
  });

  test('a long flush is written in slices of about 2 ms, a turn each; a socket sent a frame meanwhile waits for the next flush', () => {
    const clock = manualTiming();
    const coalescer = new WriteCoalescer(clock.timing);
    const sockets = Array.from({ length: 40 }, () => connection(clock, 0.25));
    for (const socket of sockets) coalescer.add(socket);
    const flushed = () => sockets.filter((s) => s.flushes > 0).length;
    assert.equal(clock.runNext(), 0);
    assert.equal(flushed(), 16, 'the clock is read every 16 sockets: 4 ms had passed');
    const late = connection(clock, 0.25);
    coalescer.add(late);
    coalescer.add(sockets[0] as (typeof sockets)[number]);
    assert.equal(clock.runNext(), 0, 'the next slice runs in the next turn');
    assert.equal(flushed(), 32);
    assert.equal(clock.runNext(), 0);
    assert.equal(flushed(), 40);
    assert.equal(late.flushes, 0, 'not in the flush that was under way');
    // The three slices took 10 ms in all: the next flush rests that long.
    assert.equal(clock.runNext(), 10);
    assert.equal(late.flushes, 1);
    assert.equal(sockets[0]?.flushes, 2);
  });
});
