import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { call } from '../../../../test/helper.ts';
import { TestClient } from '../../../../test/realtime-gateway/client.ts';
import { sessionToken, tenantWithRoom } from '../../../../test/realtime-gateway/fixtures.ts';
import { type Instance, startInstance } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { bidder, eventsOf, keyOf, liveAuction, placeBid, post } from './support.ts';

/*
 * One Actor (issue 29): an API key bids for actors it names, and every answer, frame, event and action
 * result names them as the Actor object `{type, id: '<provider>:<external_id>', identityProvider}`; the
 * actors' internal ids appear nowhere. Frames and events stored in the old shape take the new one
 * (migration 0096), so a resuming socket replays them as it gets live ones.
 */

let t: Instance;
before(async () => {
  t = await startInstance();
});
after(async () => t.close());

const MODULES = ['rooms', 'auctions'];

async function internalIds(tenantId: string, externalIds: string[]): Promise<string[]> {
  const { rows } = await t.db.query<{ id: string }>(
    'select id::text as id from actors where tenant_id = $1 and external_id = any($2::text[])',
    [tenantId, externalIds],
  );
  assert.equal(rows.length, externalIds.length, 'each bidder is an actor');
  return rows.map((r) => r.id);
}

/** Every object in `value` that has an `identityProvider`: the actors it names. */
function actorsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(actorsIn);
  if (typeof value !== 'object' || value === null) return [];
  if ('identityProvider' in value) return [value];
  return Object.values(value).flatMap(actorsIn);
}

function assertActorsOnly(what: string, answers: unknown, internal: readonly string[]): void {
  const text = JSON.stringify(answers);
  for (const id of internal) assert.ok(!text.includes(id), `${what} shows an internal actor id`);
  assert.ok(!text.includes('externalId'), `${what} uses the old actor shape`);
  const named = actorsIn(answers);
  assert.ok(named.length > 0, `${what} names a bidder`);
  for (const actor of named) {
    assert.ok(
      [bidder('ann'), bidder('bob')].some((b) => isDeepStrictEqual(b, actor)),
      `${what}: ${JSON.stringify(actor)} is not the Actor object`,
    );
  }
}

describe('auctions name bidders and winners as the Actor object', () => {
  test('answers, lists, events, action results and frames (live and replayed); no internal id', async () => {
    const { apiKey, roomId, tenantId } = await tenantWithRoom(t);
    const watcher = await TestClient.connect(t.wsUrl, await sessionToken(t, apiKey, { modules: MODULES }));
    await watcher.join(roomId);
    const a = await liveAuction(t, apiKey, { roomId, reservePrice: 3000, buyNowPrice: 9000 });
    const answers: Record<string, unknown> = {};
    const ann = await placeBid(t, apiKey, a.id, 'ann', { amount: 1000, clientBidId: 'ann-1' });
    assert.equal(ann.statusCode, 201, ann.body);
    answers.bid = ann.json();
    answers.retry = (await placeBid(t, apiKey, a.id, 'ann', { amount: 1000, clientBidId: 'ann-1' })).json();
    const bought = await post(t, apiKey, `/v1/auctions/${a.id}/buy-now`, { actor: bidder('bob') });
    assert.equal(bought.statusCode, 201, bought.body);
    answers.buyNow = bought.json();
    const get = async (url: string) =>
      (await call(t.app, { method: 'GET', url, headers: keyOf(apiKey) })).json();
    answers.auction = await get(`/v1/auctions/${a.id}`);
    answers.auctions = await get(`/v1/auctions?roomId=${roomId}`);
    answers.bids = await get(`/v1/auctions/${a.id}/bids`);
    answers.events = await eventsOf(t, apiKey, 'auction.*', a.id);
    const action = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/get_auction',
      headers: keyOf(apiKey),
      payload: { arguments: { auctionId: a.id } },
    });
    assert.equal(action.statusCode, 200, action.body);
    answers.action = action.json();

    const ended = answers.auction as { winner: unknown; leadingBid: { bidder: unknown } };
    assert.deepEqual(ended.winner, bidder('bob'));
    assert.deepEqual(ended.leadingBid.bidder, bidder('bob'));
    assert.deepEqual((answers.bid as { bid: { bidder: unknown } }).bid.bidder, bidder('ann'));
    const internal = await internalIds(tenantId, ['test:ann', 'test:bob']);
    assertActorsOnly('the REST answers, events and action results', answers, internal);

    await eventually('the end frame', () => watcher.frames.some((f) => f.type === 'auction.ended'));
    const replaying = await TestClient.connect(t.wsUrl, await sessionToken(t, apiKey, { modules: MODULES }));
    await replaying.join(roomId, { auctions: { [a.id]: 0 } });
    await eventually('the replayed end', () => replaying.frames.some((f) => f.type === 'auction.ended'));
    const auctionFrames = (client: TestClient) => client.frames.filter((f) => f.type.startsWith('auction.'));
    assertActorsOnly('the live frames', auctionFrames(watcher), internal);
    assertActorsOnly('the replayed frames', auctionFrames(replaying), internal);
    await watcher.close();
    await replaying.close();
  });

  test('frames, events, bids and state stored in the old shape take the Actor object (0096)', async () => {
    const { apiKey, roomId, tenantId } = await tenantWithRoom(t);
    const a = await liveAuction(t, apiKey, { roomId });
    assert.equal((await placeBid(t, apiKey, a.id, 'ann', { amount: 1000 })).statusCode, 201);
    const [annId] = await internalIds(tenantId, ['test:ann']);
    const old = JSON.stringify({ id: annId, type: 'end_user', externalId: 'test:ann' });
    // As the version before wrote them: the internal reference without identityProvider everywhere.
    await t.db.query(`update auctions set leader = $2::jsonb, winner = $2::jsonb where id = $1`, [a.id, old]);
    await t.db.query(`update auction_bids set bidder = $2::jsonb where auction_id = $1`, [a.id, old]);
    await t.db.query(
      `update auction_log set frame = jsonb_set(jsonb_set(frame, '{bid,bidder}', $2::jsonb),
         '{leadingBid,bidder}', $2::jsonb) where auction_id = $1 and frame ? 'bid'`,
      [a.id, old],
    );
    await t.db.query(
      `update events set data = jsonb_set(data, '{bid,bidder}', $2::jsonb)
        where type = 'auction.bid.placed' and data ->> 'auctionId' = $1`,
      [a.id, old],
    );
    await t.db.exec(
      await readFile(new URL('../migrations/0096_auction_actors.sql', import.meta.url), 'utf8'),
    );
    const stored = await t.db.query<{ leader: unknown; winner: unknown; bidder: unknown }>(
      `select a.leader, a.winner, b.bidder from auctions a join auction_bids b on b.auction_id = a.id
        where a.id = $1`,
      [a.id],
    );
    const reference = { id: annId, type: 'end_user', externalId: 'test:ann', identityProvider: 'test' };
    assert.deepEqual(stored.rows[0], { leader: reference, winner: reference, bidder: reference });

    const answers: Record<string, unknown> = {};
    const get = async (url: string) =>
      (await call(t.app, { method: 'GET', url, headers: keyOf(apiKey) })).json();
    answers.auction = await get(`/v1/auctions/${a.id}`);
    answers.bids = await get(`/v1/auctions/${a.id}/bids`);
    answers.events = await eventsOf(t, apiKey, 'auction.bid.placed', a.id);
    const socket = await TestClient.connect(t.wsUrl, await sessionToken(t, apiKey, { modules: MODULES }));
    await socket.join(roomId, { auctions: { [a.id]: 0 } });
    const replayed = await socket.waitForType('auction.bid');
    assert.deepEqual(replayed.bid, { ...(replayed.bid as object), bidder: bidder('ann') });
    assertActorsOnly('what the old rows answer after 0096', { answers, replayed }, [annId as string]);
    await socket.close();
  });
});
