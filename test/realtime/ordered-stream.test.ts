import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import { OrderedStream } from '../../src/core/realtime/ordered-stream.ts';

interface Item {
  seq: number;
  from: 'live' | 'log';
}

/** A stream over a log of `logged` items (seq 1..logged); records deliveries, reads and reports. */
function setup(options: { logged: number; next?: number; pageSize?: number; failReads?: boolean }) {
  const clock = new ManualClock();
  const delivered: Item[] = [];
  const reads: { from: number; limit: number }[] = [];
  const reports: string[] = [];
  let caughtUp = 0;
  const stream = new OrderedStream<Item>(
    {
      seqOf: (item) => item.seq,
      readFrom: async (from, limit) => {
        reads.push({ from, limit });
        if (options.failReads) throw new Error('database down');
        const items: Item[] = [];
        for (let seq = from; seq <= options.logged && items.length < limit; seq++)
          items.push({ seq, from: 'log' });
        return items;
      },
      deliver: (item) => delivered.push(item),
      pageSize: options.pageSize ?? 100,
      gapWaitMs: 50,
      clock,
      report: (_error, context) => reports.push(context),
      reportContext: 'test catch-up',
      caughtUp: () => {
        caughtUp += 1;
      },
    },
    options.next,
  );
  const seqs = () => delivered.map((item) => item.seq);
  return { clock, stream, delivered, reads, reports, seqs, caughtUpCount: () => caughtUp };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('OrderedStream', () => {
  test('delivers in seq order whatever order items arrive in, each once', () => {
    const { stream, seqs, reads } = setup({ logged: 3, next: 1 });
    stream.received({ seq: 2, from: 'live' });
    stream.received({ seq: 3, from: 'live' });
    assert.deepEqual(seqs(), []);
    stream.received({ seq: 1, from: 'live' });
    stream.received({ seq: 2, from: 'live' });
    assert.deepEqual(seqs(), [1, 2, 3]);
    assert.equal(reads.length, 0);
  });

  test('an early item waits gapWaitMs, then the missing ones are read from the log in pages', async () => {
    const { clock, stream, delivered, reads, caughtUpCount } = setup({ logged: 7, next: 1, pageSize: 2 });
    stream.received({ seq: 7, from: 'live' });
    clock.advance(49);
    await settle();
    assert.equal(reads.length, 0);
    clock.advance(1);
    for (let i = 0; i < 10; i++) await settle();
    assert.deepEqual(
      delivered.map((item) => `${item.seq}:${item.from}`),
      ['1:log', '2:log', '3:log', '4:log', '5:log', '6:log', '7:live'],
    );
    assert.deepEqual(
      reads.map((r) => r.from),
      [1, 3, 5, 8],
    );
    assert.equal(caughtUpCount(), 1);
  });

  test('holds everything until start says where the stream stood; older items are dropped', () => {
    const { stream, seqs } = setup({ logged: 6 });
    stream.received({ seq: 4, from: 'live' });
    stream.received({ seq: 6, from: 'live' });
    stream.received({ seq: 5, from: 'live' });
    assert.deepEqual(seqs(), []);
    stream.start(5);
    assert.deepEqual(seqs(), [5, 6]);
  });

  test('nothing in the log where the gap is: goes on from what did arrive', async () => {
    const { clock, stream, seqs } = setup({ logged: 0, next: 1 });
    stream.received({ seq: 3, from: 'live' });
    clock.advance(50);
    for (let i = 0; i < 5; i++) await settle();
    assert.deepEqual(seqs(), [3]);
  });

  test('a failed read is reported and retried after the gap wait; reset starts over', async () => {
    const { clock, stream, reads, reports, seqs } = setup({ logged: 5, next: 1, failReads: true });
    stream.received({ seq: 2, from: 'live' });
    clock.advance(50);
    for (let i = 0; i < 5; i++) await settle();
    assert.deepEqual(reports, ['test catch-up']);
    clock.advance(50);
    for (let i = 0; i < 5; i++) await settle();
    assert.equal(reads.length, 2);
    stream.reset(1);
    clock.advance(500);
    await settle();
    assert.equal(reads.length, 2);
    stream.received({ seq: 1, from: 'live' });
    assert.deepEqual(seqs(), [1]);
  });

  test('stopped: delivers nothing more and arms no timer', async () => {
    const { clock, stream, seqs, reads } = setup({ logged: 5, next: 1 });
    stream.received({ seq: 2, from: 'live' });
    stream.stop();
    stream.received({ seq: 1, from: 'live' });
    clock.advance(500);
    await settle();
    assert.deepEqual(seqs(), []);
    assert.equal(reads.length, 0);
  });
});
