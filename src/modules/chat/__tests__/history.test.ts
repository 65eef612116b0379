import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bearer } from '../../../../test/factories.ts';
import { call } from '../../../../test/helper.ts';
import { BOT, chatSuite, type Message, send } from './support.ts';

const chat = chatSuite();

describe('chat history', () => {
  test('history pages both ways by seq (limit and cursor), oldest first within a page, with tombstones kept', async () => {
    const { t, tenant } = await chat.room();
    for (let i = 1; i <= 12; i++) {
      assert.equal(
        (
          await send(t, tenant.apiKey, tenant.roomId, {
            text: `m${i}`,
            actor: BOT,
          })
        ).statusCode,
        201,
      );
    }
    const get = (query: string) =>
      call(t.app, {
        method: 'GET',
        url: `/v1/rooms/${tenant.roomId}/messages${query}`,
        headers: bearer(tenant.apiKey),
      });
    const seqs = (res: Awaited<ReturnType<typeof get>>) =>
      res.json<{ data: Message[] }>().data.map((m) => m.seq);
    type Page = { data: Message[]; nextCursor: string | null };
    const page = (res: Awaited<ReturnType<typeof get>>) => res.json<Page>();
    const newest = await get('?limit=5');
    assert.deepEqual(seqs(newest), [8, 9, 10, 11, 12]);
    const older = await get(`?limit=5&cursor=${page(newest).nextCursor}`);
    assert.deepEqual(seqs(older), [3, 4, 5, 6, 7], 'the cursor reads back from the page before');
    const oldest = await get(`?limit=5&cursor=${page(older).nextCursor}`);
    assert.deepEqual(seqs(oldest), [1, 2]);
    assert.equal(page(oldest).nextCursor, null);
    assert.deepEqual(seqs(await get('?limit=5&before=8')), [3, 4, 5, 6, 7]);
    assert.equal(page(await get('?limit=5&before=3')).nextCursor, null);
    const forward = await get('?after=0&limit=4');
    assert.deepEqual(seqs(forward), [1, 2, 3, 4]);
    const next = await get(`?limit=4&cursor=${page(forward).nextCursor}`);
    assert.deepEqual(seqs(next), [5, 6, 7, 8], 'a cursor of a forward read goes on forward');
    const tail = await get('?after=10');
    assert.deepEqual(seqs(tail), [11, 12]);
    assert.equal(page(tail).nextCursor, null);
    assert.deepEqual(seqs(await get('?after=3&before=6')), [4, 5]);
    const bounded = await get('?after=3&before=9&limit=2');
    assert.deepEqual(seqs(bounded), [4, 5]);
    const boundedNext = await get(`?before=9&limit=4&cursor=${page(bounded).nextCursor}`);
    assert.deepEqual(seqs(boundedNext), [6, 7, 8], '`before` still bounds the pages that follow');
    assert.equal(page(boundedNext).nextCursor, null);
    assert.equal((await get('?cursor=not-a-cursor')).statusCode, 400);
    assert.equal((await get('?limit=101')).statusCode, 400);
    assert.equal((await get('?after=-1')).statusCode, 400);
  });
});
