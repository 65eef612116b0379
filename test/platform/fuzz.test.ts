import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { oneRoom } from '../support/security-suite.ts';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
}
interface BodySchema {
  properties?: Record<string, unknown>;
  $ref?: string;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: BodySchema }> };
  security?: Record<string, string[]>[];
}
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/** Malformed values as JSON text, for body fields. */
const BODY_VALUES = [
  '"a\\u0000b"',
  '"\\ud800"',
  '"x\\udfff"',
  nested(40),
  '1e23',
  '1e309',
  '-1e309',
  '-1',
  '[]',
  '{}',
  'true',
  'null',
  JSON.stringify('x'.repeat(20_000)),
];
/** Malformed values as URL text, for path and query parameters. */
const URL_VALUES = [
  '%00',
  'a%00b',
  '99999999999999999999999',
  '1e309',
  'Infinity',
  '-1',
  'x'.repeat(3000),
  '%ED%A0%80',
  '%FF',
  '%5B%5D',
];

/**
 * Issue 13: a walk of `/openapi.json` that sends malformed values — NUL, lone surrogates, deep nesting, huge
 * and infinite numbers, wrong types, over-long text — in every path parameter, query parameter and body
 * field of every operation, with a credential that passes authentication. No answer may be a 5xx, and
 * every 4xx has the API's error shape.
 */
describe('fuzz: every operation of /openapi.json', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let roomId: string;
  let sessionToken: string;
  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
    ({ roomId } = await oneRoom(t, tenant));
    sessionToken = (await connectSession(t, tenant.apiKey)).token;
  });
  after(() => t.close());

  /** A credential the operation accepts: the owner's hosted JWT for the console, else the API key. */
  function credential(operation: Operation): Record<string, string> {
    const schemes = new Set((operation.security ?? []).flatMap((s) => Object.keys(s)));
    if (schemes.has('hostedJwt')) return bearer(tenant.ownerToken);
    if (schemes.has('apiKey') || schemes.has('apiKeyHeader')) return bearer(tenant.apiKey);
    if (schemes.has('sessionToken')) return bearer(sessionToken);
    return {};
  }

  /** A path parameter's value when it is not the one under test: real ids, except where it could destroy them. */
  function plausible(name: string, method: Method): string {
    if (method === 'DELETE') return 'x';
    if (name === 'tenantId') return tenant.tenantId;
    if (name === 'roomId') return roomId;
    return 'x';
  }

  test('no malformed value gets a 5xx, and every refusal has the error shape', async () => {
    const doc = (await call(t.app, { method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, BodySchema> };
    }>();
    const failures: string[] = [];
    let sent = 0;
    const check = async (method: Method, url: string, operation: Operation, payload?: string) => {
      sent += 1;
      const res = await call(t.app, {
        method,
        url,
        headers: {
          ...credential(operation),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { payload }),
      });
      const where = `${method} ${url.slice(0, 100)} ${payload?.slice(0, 60) ?? ''}`;
      if (res.statusCode >= 500) failures.push(`${res.statusCode} ${where}: ${res.body.slice(0, 200)}`);
      else if (res.statusCode >= 400 && url !== '/mcp') {
        const body = res.json<{ error?: unknown; requestId?: unknown }>();
        if (typeof body.error !== 'string' || typeof body.requestId !== 'string') {
          failures.push(`${res.statusCode} without the error shape: ${where}: ${res.body.slice(0, 200)}`);
        }
      }
    };

    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [lower, operation] of Object.entries(operations)) {
        const method = lower.toUpperCase() as Method;
        const pathParams = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        const queryParams = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        const fill = (except?: string, value?: string) =>
          template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
            name === except && value !== undefined ? value : encodeURIComponent(plausible(name, method)),
          );
        const declared = operation.requestBody?.content?.['application/json']?.schema;
        // A named request body is a $ref to its component.
        const bodySchema = declared?.$ref?.startsWith('#/components/schemas/')
          ? doc.components.schemas[declared.$ref.slice('#/components/schemas/'.length)]
          : declared;
        const body = bodySchema === undefined ? undefined : '{}';

        for (const name of pathParams) {
          for (const value of URL_VALUES) await check(method, fill(name, value), operation, body);
        }
        for (const name of queryParams) {
          for (const value of URL_VALUES) await check(method, `${fill()}?${name}=${value}`, operation, body);
        }
        if (bodySchema === undefined) continue;
        for (const field of Object.keys(bodySchema.properties ?? {})) {
          for (const value of BODY_VALUES) await check(method, fill(), operation, `{"${field}":${value}}`);
        }
        for (const whole of [nested(40), '[]', '"text"', '{"a":"\\u0000"}']) {
          await check(method, fill(), operation, whole);
        }
      }
    }
    assert.equal(
      failures.length,
      0,
      `${failures.length} bad answers of ${sent}:\n${failures.slice(0, 60).join('\n')}`,
    );
    assert.ok(sent > 1000, `only ${sent} requests were sent`);
  });
});
