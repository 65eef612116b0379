import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { actionRouteProblems, type RouteAccess } from '../../src/core/modules/action-routes.ts';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { connect } from '../mcp/support.ts';
import { answerOf, cases, expectedOf } from './actions-end-user-cases.ts';
import { endUserWorld } from './actions-end-user-support.ts';

/**
 * Every action, called with an end user's session token on another end user's data, answers what its REST
 * route answers to the same token: the same status and error code (a 2xx for a 2xx), and never the other
 * user's private data. Where the route does not take session tokens at all (401), the action refuses with
 * 403 `forbidden` and is not listed for the token. Run with a token for every module and with one limited
 * to another room. A new action fails the completeness check until it has a case here.
 */ describe('actions and MCP tools answer an end user what REST answers', () => {
  const world = endUserWorld();

  test('every action has a case', () => {
    const { t } = world();
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
      const { t, f, tokens, mcp } = world();
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
    const { t, tenant, f, tokens, mcp } = world();
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
    const { t } = world();
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
