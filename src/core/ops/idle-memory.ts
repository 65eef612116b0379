// What a start leaves in its heaps. Loading the service, migrating and opening the embedded database
// grow V8's heaps (the young generation to its 16 MiB semi-spaces, the old one to what the start held at
// its peak), and an idle process never collects again: nothing allocates, so V8 keeps the room. Once the
// start is over, each heap is collected the way V8 does when the system is low on memory, which shrinks
// the young generation to its least and hands free pages back; it grows again under load as it would.
import { Session } from 'node:inspector';
import v8 from 'node:v8';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';

/** How long after the listen the start's memory is released: the start's trailing work is done by then. */
export const RELEASE_AFTER_START_MS = 2_000;

/** A heap's size (V8's total: every space's committed pages) before and after a collection, in bytes. */
export interface HeapRelease {
  before: number;
  after: number;
}

/**
 * V8's collection for low memory on this thread's heap: full, and giving back what it kept for growth.
 * Reached through the inspector's `HeapProfiler.collectGarbage` on an in-process session (no port is
 * opened, nothing is profiled). Without an inspector (a node built without one) nothing is collected.
 */
export function collectLowMemoryGarbage(): Promise<HeapRelease> {
  const before = v8.getHeapStatistics().total_heap_size;
  const unchanged = { before, after: before };
  return new Promise((resolve) => {
    const session = new Session();
    try {
      session.connect();
    } catch {
      resolve(unchanged);
      return;
    }
    session.post('HeapProfiler.collectGarbage', () => {
      // Disconnected from inside its own callback, a session keeps the process from exiting (node 20).
      setImmediate(() => session.disconnect());
      resolve({ before, after: v8.getHeapStatistics().total_heap_size });
    });
  });
}

/**
 * Once, RELEASE_AFTER_START_MS after a start: the embedded database's thread and then this one collect
 * as above (`Database.releaseMemory`). `done` hears what each heap gave back (for the log). A stop
 * before then only makes the database's part fail, which is ignored.
 */
export function releaseStartMemory(
  db: Database,
  clock: Clock,
  done: (released: { database?: HeapRelease; service: HeapRelease }) => void = () => {},
): void {
  clock.setTimeout(() => {
    void (async () => {
      const database = await db.releaseMemory?.().catch(() => undefined);
      const service = await collectLowMemoryGarbage();
      done({ ...(database === undefined ? {} : { database }), service });
    })();
  }, RELEASE_AFTER_START_MS);
}
