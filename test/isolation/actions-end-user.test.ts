import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { actionRouteProblems, type RouteAccess } from '../../src/core/modules/action-routes.ts';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type Response, type TestApp } from '../helper.ts';
import { connect, mcpUrl } from '../mcp/support.ts';

/**
 * Every action, called with an end user's session token on another end user's data, answers what its REST
 * route answers to the same token: the same status and error code (a 2xx for a 2xx), and never the other
 * user's private data. Where the route does not take session tokens at all (401), the action refuses with
 * 403 `forbidden` and is not listed for the token. Run with a token for every module and with one limited
 * to another room. A new action fails the completeness check until it has a case here.
 */
interface Fixture {
  victim: string;
  messageId: string;
  auctionId: string;
  paymentId: string;
  webhookId: string;
  marker: string;
}

interface RestCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: Record<string, unknown> | Buffer;
  headers?: Record<string, string>;
}

interface Case {
  args: (f: Fixture) => Record<string, unknown>;
  rest: (f: Fixture) => RestCall;
}

const VAULT = 'vault';
const LOBBY = 'lobby';
/** An empty Yjs update (no structs, no deletions). */
const EMPTY_UPDATE = Buffer.from([0, 0]);
const SESSION_MODULES = ['rooms', 'presence', 'chat', 'auctions', 'payments', 'sync', 'analytics'];
const QUERY = { metrics: ['events'], dateRange: { preset: 'last_7_days' }, timezone: 'UTC' };
const FUNNEL = {
  steps: [{ event: 'a' }, { event: 'b' }],
  dateRange: { preset: 'last_7_days' },
  timezone: 'UTC',
};

const cases: Record<string, Case> = {
  analytics_query: {
    args: () => QUERY,
    rest: () => ({ method: 'POST', url: '/v1/analytics/query', payload: QUERY }),
  },
  analytics_funnel: {
    args: () => FUNNEL,
    rest: () => ({ method: 'POST', url: '/v1/analytics/funnel', payload: FUNNEL }),
  },
  list_auctions: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/auctions?roomId=${VAULT}` }),
  },
  get_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'GET', url: `/v1/auctions/${f.auctionId}` }),
  },
  create_auction: {
    args: () => ({ roomId: VAULT, title: 'x', currency: 'EUR', startingPrice: 100, durationSeconds: 60 }),
    rest: () => ({
      method: 'POST',
      url: '/v1/auctions',
      payload: { roomId: VAULT, title: 'x', currency: 'EUR', startingPrice: 100, durationSeconds: 60 },
    }),
  },
  start_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'POST', url: `/v1/auctions/${f.auctionId}/start` }),
  },
  // Bidding in the victim's name.
  place_bid: {
    args: (f) => ({ auctionId: f.auctionId, amount: 5_000, actor: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: `/v1/auctions/${f.auctionId}/bids`,
      payload: { amount: 5_000, actor: actorOf(f.victim) },
    }),
  },
  cancel_auction: {
    args: (f) => ({ auctionId: f.auctionId }),
    rest: (f) => ({ method: 'POST', url: `/v1/auctions/${f.auctionId}/cancel`, payload: {} }),
  },
  list_messages: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/messages` }),
  },
  // Writing in the victim's name.
  send_message: {
    args: (f) => ({ roomId: VAULT, text: 'as the victim', actor: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: `/v1/rooms/${VAULT}/messages`,
      payload: { text: 'as the victim', actor: actorOf(f.victim) },
    }),
  },
  delete_message: {
    args: (f) => ({ roomId: VAULT, messageId: f.messageId }),
    rest: (f) => ({ method: 'DELETE', url: `/v1/rooms/${VAULT}/messages/${f.messageId}` }),
  },
  list_payments: {
    args: (f) => ({ customer: f.victim }),
    rest: (f) => ({ method: 'GET', url: `/v1/payments?customer=${encodeURIComponent(f.victim)}` }),
  },
  get_payment: {
    args: (f) => ({ paymentId: f.paymentId }),
    rest: (f) => ({ method: 'GET', url: `/v1/payments/${f.paymentId}` }),
  },
  create_payment: {
    args: (f) => ({ amount: 100, currency: 'EUR', customer: actorOf(f.victim) }),
    rest: (f) => ({
      method: 'POST',
      url: '/v1/payments',
      payload: { amount: 100, currency: 'EUR', customer: actorOf(f.victim) },
    }),
  },
  refund_payment: {
    args: (f) => ({ paymentId: f.paymentId }),
    rest: (f) => ({ method: 'POST', url: `/v1/payments/${f.paymentId}/refunds`, payload: {} }),
  },
  // The balance is read over REST through the ledger's accounts (API keys only).
  get_balance: {
    args: (f) => ({ account: `customer:${f.victim}` }),
    rest: () => ({ method: 'GET', url: '/v1/ledger/accounts' }),
  },
  list_presence: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/presence` }),
  },
  list_rooms: { args: () => ({}), rest: () => ({ method: 'GET', url: '/v1/rooms' }) },
  get_room: { args: () => ({ roomId: VAULT }), rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}` }) },
  create_room: {
    args: () => ({ id: 'intruders', name: 'x' }),
    rest: () => ({ method: 'POST', url: '/v1/rooms', payload: { id: 'intruders', name: 'x' } }),
  },
  update_room: {
    args: () => ({ roomId: VAULT, name: 'taken' }),
    rest: () => ({ method: 'PATCH', url: `/v1/rooms/${VAULT}`, payload: { name: 'taken' } }),
  },
  delete_room: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'DELETE', url: `/v1/rooms/${VAULT}` }),
  },
  get_document: {
    args: () => ({ roomId: VAULT }),
    rest: () => ({ method: 'GET', url: `/v1/rooms/${VAULT}/ydoc` }),
  },
  apply_document_update: {
    args: () => ({ roomId: VAULT, update: EMPTY_UPDATE.toString('base64') }),
    rest: () => ({
      method: 'PUT',
      url: `/v1/rooms/${VAULT}/ydoc-binary`,
      payload: EMPTY_UPDATE,
      headers: { 'content-type': 'application/octet-stream' },
    }),
  },
  list_webhooks: { args: () => ({}), rest: () => ({ method: 'GET', url: '/v1/webhooks' }) },
  create_webhook: {
    args: () => ({ url: 'https://example.test/x', eventTypes: ['app.*'] }),
    rest: () => ({
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: 'https://example.test/x', eventTypes: ['app.*'] },
    }),
  },
  delete_webhook: {
    args: (f) => ({ webhookId: f.webhookId }),
    rest: (f) => ({ method: 'DELETE', url: `/v1/webhooks/${f.webhookId}` }),
  },
  list_webhook_deliveries: {
    args: (f) => ({ endpointId: f.webhookId }),
    rest: (f) => ({ method: 'GET', url: `/v1/webhooks/${f.webhookId}/deliveries` }),
  },
};

function actorOf(externalId: string) {
  return { type: 'end_user', id: externalId, identityProvider: 'test' };
}

interface Answer {
  status: number;
  error: string | undefined;
  body: string;
}

function answerOf(res: Response): Answer {
  const body = res.body;
  const error = res.statusCode >= 400 ? res.json<{ error?: string }>().error : undefined;
  return { status: res.statusCode, error, body };
}

/** What the action must answer, given what the route answered the same token. */
function expectedOf(rest: Answer): { status: number; error: string | undefined } {
  if (rest.status === 401) return { status: 403, error: 'forbidden' };
  if (rest.status < 300) return { status: 200, error: undefined };
  return { status: rest.status, error: rest.error };
}

describe('actions and MCP tools answer an end user what REST answers', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let f: Fixture;
  /** A token for every module, and one limited to another room. */
  const tokens: Record<'free' | 'limited', string> = { free: '', limited: '' };
  let mcp: URL;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t, { name: 'one tenant, two end users' });
    const key = { 'x-api-key': tenant.apiKey };
    const marker = `private-${Date.now()}`;
    for (const id of [VAULT, LOBBY]) {
      const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers: key, payload: { id } });
      assert.equal(room.statusCode, 201, room.body);
    }
    const victim = await connectSession(t, tenant.apiKey, {
      modules: SESSION_MODULES,
      actorId: 'test:victim',
    });
    const message = await call(t.app, {
      method: 'POST',
      url: `/v1/rooms/${VAULT}/messages`,
      headers: bearer(victim.token),
      payload: { text: 'the victim writes' },
    });
    assert.equal(message.statusCode, 201, message.body);
    const auction = await call(t.app, {
      method: 'POST',
      url: '/v1/auctions',
      headers: key,
      payload: { roomId: VAULT, title: 'lot', currency: 'EUR', startingPrice: 100, durationSeconds: 3600 },
    });
    assert.equal(auction.statusCode, 201, auction.body);
    const auctionId = auction.json<{ id: string }>().id;
    const started = await call(t.app, {
      method: 'POST',
      url: `/v1/auctions/${auctionId}/start`,
      headers: key,
    });
    assert.equal(started.statusCode, 200, started.body);
    const payment = await call(t.app, {
      method: 'POST',
      url: '/v1/payments',
      headers: key,
      payload: {
        amount: 4200,
        currency: 'EUR',
        description: marker,
        seller: 'v-shop',
        customer: actorOf('test:victim'),
      },
    });
    assert.equal(payment.statusCode, 201, payment.body);
    const paymentId = payment.json<{ id: string }>().id;
    const paid = await call(t.app, {
      method: 'POST',
      url: `/v1/payments/${paymentId}/confirm`,
      headers: key,
      payload: { paymentMethod: 'pm_card_visa' },
    });
    assert.equal(paid.statusCode, 200, paid.body);
    const hook = await call(t.app, {
      method: 'POST',
      url: '/v1/webhooks',
      headers: key,
      payload: {
        url: `https://example.test/${marker}`,
        secret: `${marker}-secret-0123456789`,
        eventTypes: ['app.*'],
      },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    f = {
      victim: 'test:victim',
      messageId: message.json<{ id: string }>().id,
      auctionId,
      paymentId,
      webhookId: hook.json<{ id: string }>().id,
      marker,
    };
    const options = { modules: SESSION_MODULES, actorId: 'test:intruder' };
    tokens.free = (await connectSession(t, tenant.apiKey, options)).token;
    tokens.limited = (await connectSession(t, tenant.apiKey, { ...options, roomId: LOBBY })).token;
    mcp = await mcpUrl(t);
  });
  after(() => t.close());

  test('every action has a case', () => {
    const actions = t.app.services.registry.allActions().map(({ action }) => action.name);
    assert.deepEqual(
      actions.filter((name) => !(name in cases)),
      [],
      'actions without a case: add them to `cases`',
    );
    assert.deepEqual(
      Object.keys(cases).filter((name) => !actions.includes(name)),
      [],
      'cases without an action',
    );
  });

  for (const kind of ['free', 'limited'] as const) {
    test(`a ${kind} session token: every action answers as its REST route, and MCP tools as the action`, async () => {
      const token = tokens[kind];
      const listed = await call(t.app, { method: 'GET', url: '/v1/actions', headers: bearer(token) });
      assert.equal(listed.statusCode, 200, listed.body);
      const names = listed.json<{ data: { name: string }[] }>().data.map((a) => a.name);
      const client: Client = await connect(mcp, token);
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        for (const [name, spec] of Object.entries(cases)) {
          const rest = spec.rest(f);
          const restAnswer = answerOf(
            await call(t.app, {
              method: rest.method,
              url: rest.url,
              headers: { ...bearer(token), ...rest.headers },
              ...(rest.payload === undefined ? {} : { payload: rest.payload }),
            }),
          );
          const action = answerOf(
            await call(t.app, {
              method: 'POST',
              url: `/v1/actions/${name}`,
              headers: bearer(token),
              payload: { arguments: spec.args(f) },
            }),
          );
          const expected = expectedOf(restAnswer);
          const what = `${name} (REST ${rest.method} ${rest.url} answered ${restAnswer.status} ${restAnswer.error ?? ''})`;
          assert.deepEqual(
            { status: action.status, error: action.error },
            expected,
            `${what}: ${action.body}`,
          );
          for (const answer of [restAnswer, action])
            assert.ok(!answer.body.includes(f.marker), `${what} shows another user's private data`);
          assert.equal(names.includes(name), restAnswer.status !== 401, `${name} listed in GET /v1/actions`);
          assert.equal(tools.includes(name), restAnswer.status !== 401, `${name} listed as an MCP tool`);
          // MCP tools run the same check and verb: reads and refusals answer as the action did (writes
          // may first ask a person to confirm, see test/mcp/confirmation.test.ts).
          const entry = t.app.services.registry.action(name);
          if (entry?.action.access !== 'read' && restAnswer.status !== 401) continue;
          const result = await client.callTool({ name, arguments: spec.args(f) });
          const text = JSON.stringify(result);
          assert.ok(!text.includes(f.marker), `MCP ${name} shows another user's private data`);
          if (expected.error === undefined) assert.notEqual(result.isError, true, `MCP ${name}: ${text}`);
          else {
            assert.equal(result.isError, true, `MCP ${name}: ${text}`);
            const block = (result.content as { text?: string }[])[0]?.text ?? '{}';
            assert.equal(JSON.parse(block).error, expected.error, `MCP ${name}: ${block}`);
          }
        }
      } finally {
        await client.close();
      }
    });
  }

  test('the issue’s reproduction: get_balance of another customer and of a seller, action and MCP', async () => {
    const client = await connect(mcp, tokens.free);
    try {
      for (const account of [`customer:${f.victim}`, 'seller:v-shop:payable']) {
        const res = await call(t.app, {
          method: 'POST',
          url: '/v1/actions/get_balance',
          headers: bearer(tokens.free),
          payload: { arguments: { account } },
        });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json<{ error: string }>().error, 'forbidden');
        assert.doesNotMatch(res.body, /4200|balances/);
        const tool = await client.callTool({ name: 'get_balance', arguments: { account } });
        assert.equal(tool.isError, true);
        assert.doesNotMatch(JSON.stringify(tool), /4200|balances/);
      }
    } finally {
      await client.close();
    }
    // The tenant's server still reads it.
    const server = await call(t.app, {
      method: 'POST',
      url: '/v1/actions/get_balance',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { arguments: { account: `customer:${f.victim}` } },
    });
    assert.equal(server.statusCode, 200, server.body);
  });

  test('an action that differs from its REST route stops the start', () => {
    const route: RouteAccess = {
      module: 'payments',
      scope: 'payments:read',
      credentials: ['api_key'],
      roomInPath: false,
    };
    const registry = t.app.services.registry;
    const entry = registry.action('get_balance');
    assert.ok(entry !== undefined);
    const routes = new Map(registry.routes);
    assert.deepEqual(actionRouteProblems(registry, routes), []);
    routes.set(entry.action.route, { ...route, credentials: ['api_key', 'session'] });
    assert.match(
      actionRouteProblems(registry, routes).join('\n'),
      /get_balance .* mirrors route listLedgerAccounts, which accepts api_key, session; the action declares api_key/,
    );
    routes.set(entry.action.route, { ...route, scope: 'payments:write' });
    assert.match(
      actionRouteProblems(registry, routes).join('\n'),
      /requires payments:write, not payments:read/,
    );
    routes.delete(entry.action.route);
    assert.match(actionRouteProblems(registry, routes).join('\n'), /which no registered route has/);
  });
});
