import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type RouteOptions } from 'fastify';
import type { RouteAuth } from '../../src/core/auth/authenticate.ts';
import { registerOpenApi } from '../../src/core/http/openapi.ts';
import { buildTestApp, type TestApp, testConfig } from '../helper.ts';

/**
 * A route says who may call it once, in `config.auth`; the document's `security` is derived from it
 * (issue 29, item 3). Written here from the security schemes' meaning, not from the code that derives them.
 */
const SCHEMES_OF: Record<string, string[][]> = {
  // An API key as Bearer or X-API-Key, or a console user's JWT with the tenant it acts in (X-SVC-Tenant).
  api_key: [['apiKey'], ['apiKeyHeader'], ['hostedJwt', 'consoleTenant']],
  session: [['sessionToken']],
  hosted_user: [['hostedJwt']],
  product: [['productKey']],
};

function expectedSecurity(auth: RouteAuth | undefined): Record<string, string[]>[] {
  if (auth === undefined) return [];
  return [
    ...(auth.optional === true ? [{}] : []),
    ...auth.credentials.flatMap((kind) =>
      (SCHEMES_OF[kind] ?? [[`unknown ${kind}`]]).map((names) =>
        Object.fromEntries(names.map((name) => [name, []])),
      ),
    ),
  ];
}

type Document = { paths: Record<string, Record<string, { security?: unknown; operationId?: string }>> };

async function tinyApp(route: Partial<RouteOptions>) {
  const app = Fastify();
  await registerOpenApi(app, testConfig());
  app.route({ method: 'GET', url: '/things', handler: async () => ({}), ...route });
  await app.ready();
  return app;
}

describe('OpenAPI security derived once, from config.auth', () => {
  test('a route that writes schema.security by hand stops the app', async () => {
    const schema = { operationId: 'listThings', summary: 'List things' };
    const auth: RouteAuth = { credentials: ['api_key', 'session'], scope: 'things:read' };
    await assert.rejects(
      tinyApp({ schema: { ...schema, security: [{ apiKey: [] }] }, config: { auth } }),
      /GET \/things sets schema\.security by hand; declare config\.auth instead/,
    );
    await assert.rejects(
      tinyApp({ schema: { ...schema, security: [] } }),
      /sets schema\.security by hand/,
      'a public route says so by having no config.auth',
    );

    const app = await tinyApp({ schema, config: { auth } });
    try {
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
      assert.deepEqual(doc.paths['/things']?.get?.security, [
        { apiKey: [] },
        { apiKeyHeader: [] },
        { hostedJwt: [], consoleTenant: [] },
        { sessionToken: [] },
      ]);
    } finally {
      await app.close();
    }
  });

  describe('in the whole app', () => {
    let t: TestApp;
    /** `config.auth` of each route as the running app holds it, keyed `GET /v1/rooms/{roomId}`. */
    const seen = new Map<string, RouteAuth | undefined>();
    before(async () => {
      t = await buildTestApp({
        extend: (app) => {
          // Answers every request before its handler (a refused credential answers first): probing runs
          // nothing.
          app.addHook('onRequest', async (_request, reply) => reply.code(204).send());
          app.addHook('onResponse', async (request) => {
            const route = request.routeOptions;
            const path = String(route.url).replace(/:(\w+)/g, '{$1}');
            seen.set(`${request.method} ${path}`, (route.config as { auth?: RouteAuth }).auth);
          });
        },
      });
    });
    after(() => t.close());

    test("every operation's security is what its config.auth accepts", async () => {
      // What /openapi.json serves (the probe would answer that request 204).
      const doc = t.app.swagger() as unknown as Document;
      const mismatches: string[] = [];
      let operations = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const where = `${method.toUpperCase()} ${path}`;
          const url = path.replace(/\{\w+\}/g, 'probe');
          await t.app.inject({ method: method.toUpperCase() as 'GET', url });
          assert.ok(seen.has(where), `${where} was reached (${url})`);
          operations++;
          const expected = expectedSecurity(seen.get(where));
          try {
            assert.deepEqual(operation.security, expected);
          } catch {
            mismatches.push(
              `${where}: ${JSON.stringify(operation.security)}, config.auth accepts ${JSON.stringify(expected)}`,
            );
          }
        }
      }
      assert.ok(operations > 50, `${operations} operations probed`);
      assert.deepEqual(mismatches, []);
      // Known routes, as their docs say.
      assert.deepEqual(doc.paths['/healthz']?.get?.security, []);
      assert.deepEqual(doc.paths['/v1/realtime']?.get?.security, [{ sessionToken: [] }]);
      assert.ok(seen.get('GET /api/public/brand')?.credentials.includes('product'));
    });
  });
});
