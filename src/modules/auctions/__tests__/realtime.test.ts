import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClient } from '../../../../test/realtime-gateway/client.ts';
import { sessionToken, tenantWithRoom } from '../../../../test/realtime-gateway/fixtures.ts';
import { type Instance, startInstance } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { type AuctionBody, liveAuction, placeBid, post } from './support.ts';

let t: Instance;
before(async () => {
  t = await startInstance();
});
after(async () => t.close());

const MODULES = ['rooms', 'auctions'];

/** The `auction.*` frames a client got about one auction, as [type, seq]. */
function auctionFrames(client: TestClient, auctionId: string): [string, number][] {
  return client.frames
    .filter(
      (f) => f.type.startsWith('auction.') && f.type !== 'auction.bid.result' && f.auctionId === auctionId,
    )
    .map((f) => [f.type, f.seq as number]);
}

describe('auctions over the gateway', () => {
  test('room members get auction frames in seq order, each once; a socket bids with auction.bid', async () => {
    const tenant = await tenantWithRoom(t);
    const { roomId, apiKey } = tenant;
    const watcher = await TestClient.connect(t.wsUrl, await sessionToken(t, apiKey, { modules: MODULES }));
    const bidderSocket = await TestClient.connect(
      t.wsUrl,
      await sessionToken(t, apiKey, { modules: MODULES, actorId: 'test:ws-bidder' }),
    );
    await watcher.join(roomId);
    await bidderSocket.join(roomId);
    const a = await liveAuction(t, apiKey, {
      roomId,
      softClose: { windowSeconds: 7200, mode: 'extend', extendSeconds: 5, maxExtensions: 1 },
    });
    await placeBid(t, apiKey, a.id, 'rest-bidder', { amount: 1000 });
    bidderSocket.send({ type: 'auction.bid', room: roomId, auctionId: a.id, maxAmount: 5000, ref: 'b1' });
    const result = await bidderSocket.waitFor((f) => f.ref === 'b1', 'the bid result');
    assert.equal(result.type, 'auction.bid.result', JSON.stringify(result));
    assert.equal((result.bid as { maxAmount: number }).maxAmount, 5000, 'the bidder sees its own maximum');
    assert.equal(result.currentPrice, 1100);

    bidderSocket.send({ type: 'auction.bid', room: roomId, auctionId: a.id, amount: 1200, ref: 'self' });
    const refused = await bidderSocket.waitFor((f) => f.ref === 'self', 'the refusal');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'conflict');
    assert.equal((refused.details as { code: string }[])[0]?.code, 'self_outbid');

    await post(t, apiKey, `/v1/auctions/${a.id}/cancel`, {});
    const expected: [string, number][] = [
      ['auction.created', 1],
      ['auction.started', 2],
      ['auction.bid', 3],
      ['auction.extended', 4],
      ['auction.bid', 5],
      ['auction.cancelled', 6],
    ];
    for (const client of [watcher, bidderSocket]) {
      await eventually('the cancellation', () => auctionFrames(client, a.id).length >= expected.length);
      assert.deepEqual(auctionFrames(client, a.id), expected);
    }
    const bidFrame = watcher.frames.find((f) => f.type === 'auction.bid' && f.seq === 5);
    assert.equal(bidFrame?.currentPrice, 1100);
    assert.equal(
      (bidFrame?.leadingBid as { bidder: { id: string } } | undefined)?.bidder.id,
      'test:ws-bidder',
    );
    assert.ok(!JSON.stringify(watcher.frames).includes('5000'), 'no frame shows a maximum to the room');
    await watcher.close();
    await bidderSocket.close();
  });

  test('a client that rejoins with the last seq it saw gets what it missed, then live frames', async () => {
    const tenant = await tenantWithRoom(t);
    const { roomId, apiKey } = tenant;
    const token = await sessionToken(t, apiKey, { modules: MODULES });
    const first = await TestClient.connect(t.wsUrl, token);
    await first.join(roomId);
    const a = await liveAuction(t, apiKey, { roomId, suddenDeath: true });
    await placeBid(t, apiKey, a.id, 'ann', { amount: 1000 });
    await eventually('the first bid', () =>
      auctionFrames(first, a.id).some(([type]) => type === 'auction.bid'),
    );
    const seen = auctionFrames(first, a.id).at(-1)?.[1] ?? 0;
    await first.close();
    await placeBid(t, apiKey, a.id, 'bob', { amount: 1100 });
    await placeBid(t, apiKey, a.id, 'ann', { amount: 1200 });
    const again = await TestClient.connect(t.wsUrl, token);
    const joined = await again.join(roomId, { auctions: { [a.id]: seen } });
    assert.equal((joined.auctions as Record<string, number>)[a.id], 5);
    await placeBid(t, apiKey, a.id, 'bob', { amount: 1300 });
    await eventually('the live bid', () => auctionFrames(again, a.id).length >= 3);
    assert.deepEqual(auctionFrames(again, a.id), [
      ['auction.bid', 4],
      ['auction.bid', 5],
      ['auction.bid', 6],
    ]);
    const fresh = await TestClient.connect(t.wsUrl, token);
    await fresh.join(roomId);
    const ended = await post(t, apiKey, `/v1/auctions/${a.id}/cancel`, {});
    assert.equal(ended.json<AuctionBody>().status, 'cancelled');
    await eventually('the cancel', () => auctionFrames(fresh, a.id).length >= 1);
    assert.deepEqual(
      auctionFrames(fresh, a.id),
      [['auction.cancelled', 7]],
      'a join without resume starts now',
    );
    await again.close();
    await fresh.close();
  });
});
