import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { WakeLoop } from '../../src/core/modules/wake-loop.ts';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A started loop on a manual clock, counting its ticks; `tick(n)` runs as the n-th tick. */
function started(tick: (n: number, loop: WakeLoop) => Promise<void>) {
  const clock = new ManualClock();
  const failures: unknown[] = [];
  let ticks = 0;
  const loop: WakeLoop = new WakeLoop({
    clock,
    tick: () => tick(++ticks, loop),
    failed: (error) => failures.push(error),
    errorBackoffMs: 1000,
  });
  loop.start();
  /** Moves the clock and lets whatever tick that wakes run to its end. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
    await loop.idle();
  };
  return { advance, loop, failures, ticks: () => ticks };
}

describe('WakeLoop', () => {
  test('wakes coalesce: a burst runs one tick, a wake during a tick runs one more', async () => {
    let release: (() => void) | undefined;
    const { loop, ticks } = started(async (n) => {
      if (n === 2)
        await new Promise<void>((resolve) => {
          release = resolve;
        });
    });
    loop.wake();
    loop.wake();
    await loop.idle();
    assert.equal(ticks(), 1);
    loop.wake();
    await settle();
    assert.equal(ticks(), 2);
    loop.wake();
    loop.wake();
    assert.equal(loop.woken, true);
    release?.();
    await loop.idle();
    assert.equal(ticks(), 3);
    await loop.stop();
    loop.wake();
    await loop.idle();
    assert.equal(ticks(), 3);
  });

  test('sleep wakes it on the clock; lookAgain runs another tick at once', async () => {
    const { advance, loop, ticks } = started(async (n, self) => {
      if (n === 1) self.lookAgain();
      else self.sleep(100);
    });
    await loop.idle();
    assert.equal(ticks(), 2);
    await advance(99);
    assert.equal(ticks(), 2);
    await advance(1);
    assert.equal(ticks(), 3);
    await loop.stop();
    await advance(1000);
    assert.equal(ticks(), 3);
  });

  test('a failing tick is logged and retried after the backoff', async () => {
    const { advance, loop, ticks, failures } = started(async (n) => {
      if (n === 1) throw new Error('database down');
    });
    await loop.idle();
    assert.equal(failures.length, 1);
    await advance(999);
    assert.equal(ticks(), 1);
    await advance(1);
    assert.equal(ticks(), 2);
    await loop.stop();
  });
});
