import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import v8 from 'node:v8';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { openPglite } from '../../src/core/db/pglite.ts';
import {
  collectLowMemoryGarbage,
  type HeapRelease,
  RELEASE_AFTER_START_MS,
  releaseStartMemory,
} from '../../src/core/ops/idle-memory.ts';

// What a start leaves in the heaps is given back once it is over (issue 33, item 7): V8's collection
// for low memory, on the main thread and on the embedded database's thread.
const open: Database[] = [];
after(async () => {
  for (const db of open) await db.close();
});

const youngGeneration = () =>
  v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/** Short-lived objects, enough for V8 to grow the young generation as a start's burst does. */
function churn(): void {
  let kept: { n: number; text: string }[] = [];
  for (let n = 0; n < 2_000_000; n++) {
    kept.push({ n, text: `item ${n}` });
    if (kept.length > 50_000) kept = [];
  }
}

/** One embedded database for the file (opening one is most of its time). */
let shared: Promise<Database> | undefined;
function embedded(): Promise<Database> {
  shared ??= openPglite(undefined).then((db) => {
    open.push(db);
    return db;
  });
  return shared;
}

describe('memory of the start, released', () => {
  test("the main thread's collection shrinks the young generation a burst grew, and the heap", async () => {
    churn();
    const grown = youngGeneration();
    const released = await collectLowMemoryGarbage();
    assert.ok(youngGeneration() < grown, `young generation ${grown} -> ${youngGeneration()} bytes`);
    assert.ok(released.after < released.before, `heap ${released.before} -> ${released.after} bytes`);
  });

  test("the embedded database's thread collects between statements and goes on answering", async () => {
    const db = await embedded();
    for (let i = 0; i < 300; i++) await db.query('select $1::int as n, repeat($2, 100) as text', [i, 'x']);
    const released = await db.releaseMemory?.();
    assert.ok(released !== undefined, 'PGlite answers what its thread released');
    assert.ok(released.after < released.before, `heap ${released.before} -> ${released.after} bytes`);
    const { rows } = await db.query<{ n: number }>('select 7 as n');
    assert.equal(rows[0]?.n, 7);
  });

  test('a start releases both heaps once, RELEASE_AFTER_START_MS after it, not before', async () => {
    const db = await embedded();
    const clock = new ManualClock();
    const heard: { database?: HeapRelease; service: HeapRelease }[] = [];
    const released = new Promise<void>((resolve) =>
      releaseStartMemory(db, clock, (heaps) => {
        heard.push(heaps);
        resolve();
      }),
    );
    clock.advance(RELEASE_AFTER_START_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(heard.length, 0, 'nothing is collected while the start may still be working');
    clock.advance(1);
    await released;
    clock.advance(10 * RELEASE_AFTER_START_MS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(heard.length, 1, 'once');
    assert.ok(heard[0]?.database !== undefined, "the database thread's heap is released too");
    assert.ok(heard[0]?.service.before > 0);
  });
});
