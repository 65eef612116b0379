import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { connect } from '../mcp/support.ts';
import { TestClient } from '../realtime-gateway/client.ts';
import { type Instance, startInstance } from '../realtime-gateway/support.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The reserve amount is the seller's and a bidder's maximum is the bidder's. This walks everything an end
 * user (a session token) can receive about an auction — REST lists, reads, bid answers and refusals,
 * actions, MCP tool results, realtime frames live and replayed on resume — and fails when any of it holds a
 * number equal to the reserve (before or after an edit) or to another bidder's maximum. The amounts are
 * chosen so that no price the rules make equals one of them (a price lifted to the reserve, or capped at a
 * leader's maximum, would show it by design: docs/auctions.md).
 */
const FIRST_RESERVE = 7_123_457;
const RESERVE = 7_345_671;
const MAX_A = 2_345_679;
const MAX_B = 1_876_543;
const MAX_C = 4_567_891;
const MODULES = ['rooms', 'auctions'];

/** Where `n` occurs in `text` as a whole number. */
function holds(text: string, n: number): boolean {
  return new RegExp(`(?<![0-9])${n}(?![0-9])`).test(text);
}

interface Received {
  who: 'watcher' | 'a' | 'b' | 'c' | 'd';
  what: string;
  text: string;
}

describe('what an end user receives about an auction holds no reserve and no other bidder’s maximum', () => {
  let t: Instance;
  let apiKey: string;
  let roomId: string;
  let auctionId: string;
  const received: Received[] = [];
  const tokens: Record<Received['who'], string> = { watcher: '', a: '', b: '', c: '', d: '' };
  const sockets = new Map<Received['who'], TestClient>();
  /** Each bidder's own maximum: it may see that one in its own bid's answer. */
  const own: Partial<Record<Received['who'], number>> = { a: MAX_A, b: MAX_B, c: MAX_C };

  const keep = (who: Received['who'], what: string, body: unknown) =>
    received.push({ who, what, text: typeof body === 'string' ? body : JSON.stringify(body) });

  const rest = async (who: Received['who'], method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await call(t.app, {
      method,
      url,
      headers: bearer(tokens[who]),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    keep(who, `${method} ${url} -> ${res.statusCode}`, res.body);
    return res;
  };

  before(async () => {
    t = await startInstance();
    const tenant = await createTestTenant(t);
    apiKey = tenant.apiKey;
    const key = { 'x-api-key': apiKey };
    const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers: key, payload: {} });
    assert.equal(room.statusCode, 201, room.body);
    roomId = room.json<{ id: string }>().id;
    for (const who of Object.keys(tokens) as Received['who'][]) {
      tokens[who] = (await connectSession(t, apiKey, { modules: MODULES, actorId: `test:${who}` })).token;
      const socket = await TestClient.connect(t.wsUrl, tokens[who]);
      await socket.join(roomId);
      sockets.set(who, socket);
    }
  });
  after(async () => {
    for (const socket of sockets.values()) await socket.close();
    await t.close();
  });

  test('an auction from draft to cancelled, bid on through REST, actions and the gateway', async () => {
    const key = { 'x-api-key': apiKey };
    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/auctions',
      headers: key,
      payload: {
        roomId,
        title: 'Signed vinyl',
        currency: 'EUR',
        startingPrice: 1_000,
        reservePrice: FIRST_RESERVE,
        durationSeconds: 3600,
        increments: [{ from: 0, increment: 100 }],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    auctionId = created.json<{ id: string }>().id;
    const edited = await call(t.app, {
      method: 'PATCH',
      url: `/v1/auctions/${auctionId}`,
      headers: key,
      payload: { reservePrice: RESERVE },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    const started = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${auctionId}/start`,
      headers: key,
    });
    assert.equal(started.statusCode, 200, started.body);

    // The tenant's server sees the reserve; an end user sees that there is one.
    const server = await call(t.app, { method: 'GET', url: `/v1/auctions/${auctionId}`, headers: key });
    assert.equal(server.json<{ reservePrice: number }>().reservePrice, RESERVE);
    const seen = await rest('watcher', 'GET', `/v1/auctions/${auctionId}`);
    assert.equal(seen.statusCode, 200, seen.body);
    assert.equal(seen.json<{ hasReserve: boolean }>().hasReserve, true);
    assert.equal('reservePrice' in seen.json(), false, seen.body);

    // a: a proxy bid over REST. b: outbid at once, through the action. c: leads, over the gateway.
    const a = await rest('a', 'POST', `/v1/auctions/${auctionId}/bids`, { maxAmount: MAX_A });
    assert.equal(a.statusCode, 201, a.body);
    assert.equal(a.json<{ bid: { maxAmount: number } }>().bid.maxAmount, MAX_A, 'a sees its own maximum');
    const b = await rest('b', 'POST', '/v1/actions/place_bid', {
      arguments: { auctionId, amount: 1_500, maxAmount: MAX_B },
    });
    assert.equal(b.statusCode, 200, b.body);
    assert.equal(b.json<{ result: { bid: { leading: boolean } } }>().result.bid.leading, false);
    const cSocket = sockets.get('c');
    assert.ok(cSocket !== undefined);
    cSocket.send({
      type: 'auction.bid',
      room: roomId,
      auctionId,
      amount: 3_000_000,
      maxAmount: MAX_C,
      ref: 'c1',
    });
    const cResult = await cSocket.waitFor((f) => f.ref === 'c1', 'c’s bid result');
    assert.equal(cResult.type, 'auction.bid.result', JSON.stringify(cResult));
    // d: a plain bid over the reserve (a price above it, not lifted to it); then a refusal.
    const d = await rest('d', 'POST', `/v1/auctions/${auctionId}/bids`, { amount: 8_000_000 });
    assert.equal(d.statusCode, 201, d.body);
    assert.equal(d.json<{ auction: { reserveMet: boolean } }>().auction.reserveMet, true);
    const low = await rest('a', 'POST', `/v1/auctions/${auctionId}/bids`, { amount: 1_200 });
    assert.equal(low.statusCode, 409, low.body);

    // Every read an end user has, by every surface.
    for (const who of Object.keys(tokens) as Received['who'][]) {
      await rest(who, 'GET', `/v1/auctions/${auctionId}`);
      await rest(who, 'GET', `/v1/auctions?roomId=${roomId}`);
      await rest(who, 'GET', '/v1/auctions');
      await rest(who, 'GET', `/v1/auctions/${auctionId}/bids`);
      await rest(who, 'POST', '/v1/actions/get_auction', { arguments: { auctionId } });
      await rest(who, 'POST', '/v1/actions/list_auctions', { arguments: { roomId } });
    }
    const address = t.wsUrl.replace('ws://', 'http://').replace('/v1/realtime', '/mcp');
    const client = await connect(new URL(address), tokens.watcher);
    try {
      keep(
        'watcher',
        'MCP get_auction',
        await client.callTool({ name: 'get_auction', arguments: { auctionId } }),
      );
      keep(
        'watcher',
        'MCP list_auctions',
        await client.callTool({ name: 'list_auctions', arguments: { roomId } }),
      );
    } finally {
      await client.close();
    }

    const cancelled = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${auctionId}/cancel`,
      headers: key,
      payload: {},
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const last = cancelled.json<{ seq: number }>().seq;
    for (const [who, socket] of sockets) {
      await eventually(`${who}'s auction.cancelled`, () =>
        socket.frames.find((f) => f.type === 'auction.cancelled' && f.auctionId === auctionId),
      );
      // A socket that resumes from the start gets the auction's whole log again.
      const again = await TestClient.connect(t.wsUrl, tokens[who]);
      await again.join(roomId, { auctions: { [auctionId]: 0 } });
      await eventually(`${who}'s replay`, () =>
        again.frames.find((f) => f.auctionId === auctionId && f.seq === last),
      );
      await again.close();
      for (const frame of [...socket.frames, ...again.frames]) keep(who, `frame ${frame.type}`, frame);
    }
    const frameTypes = new Set(received.filter((r) => r.what.startsWith('frame ')).map((r) => r.what));
    for (const type of ['created', 'updated', 'started', 'bid', 'bid.result', 'cancelled'])
      assert.ok(frameTypes.has(`frame auction.${type}`), `an auction.${type} frame was received`);

    const leaks = received.flatMap((r) => {
      const secrets = [FIRST_RESERVE, RESERVE, MAX_A, MAX_B, MAX_C];
      // A bidder may see its own maximum, in answers to its own bids.
      const mine = own[r.who];
      return secrets
        .filter((n) => holds(r.text, n) && !(n === mine && isOwnBidAnswer(r)))
        .map((n) => `${r.who}: ${r.what} holds ${n}: ${r.text.slice(0, 300)}`);
    });
    assert.deepEqual(leaks, []);
    assert.ok(received.length > 60, `walked ${received.length} answers and frames`);
  });
});

function isOwnBidAnswer(r: Received): boolean {
  return /bids -> 201|place_bid -> 200|frame auction\.bid\.result/.test(r.what);
}
