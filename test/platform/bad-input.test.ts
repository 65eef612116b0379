import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { SESSION_AUDIENCE, SESSION_ISSUER } from '../../src/core/auth/session-tokens.ts';
import { SESSION_ALG } from '../../src/core/auth/signing-keys.ts';
import { bearer, connectSession, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { oneRoom } from '../support/security-suite.ts';

/** `depth` levels of `{"a": ...}` around `inner`, as JSON text (built as text: no recursion anywhere). */
function nested(depth: number, inner = '1'): string {
  return `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}

interface ErrorBody {
  error: string;
  message: string;
  requestId?: string;
  details?: { field: string; code?: string }[];
}

/**
 * Issue 13, finding 3 and 5: input the database cannot store, JSON nested without end, numbers past what
 * bigint holds and tokens signed with our key but shaped otherwise are refused with 400 / 401, never 500.
 */
describe('bad input is refused with the right error, never a 500', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let roomId: string;
  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
    ({ roomId } = await oneRoom(t, tenant));
  });
  after(() => t.close());

  const send = (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    body?: string,
    headers = bearer(tenant.apiKey),
  ) =>
    call(t.app, {
      method,
      url,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: body }),
    });
  const refusal = (res: { statusCode: number; body: string }, status = 400) => {
    assert.equal(res.statusCode, status, res.body);
    const body = JSON.parse(res.body) as ErrorBody;
    assert.equal(typeof body.requestId, 'string');
    return body;
  };

  test('a NUL character in a stored string, in any body field', async () => {
    for (const [url, body, field] of [
      ['/v1/rooms', '{"name":"a\\u0000b"}', '/body/name'],
      ['/v1/rooms', '{"metadata":{"k":"v\\u0000"}}', '/body/metadata/k'],
      ['/v1/rooms', '{"metadata":{"k\\u0000":"v"}}', '/body/metadata/k\u0000'],
      [
        `/v1/rooms/${roomId}/messages`,
        '{"text":"hi\\u0000","actor":{"type":"agent","id":"test:a","identityProvider":"test"}}',
        '/body/text',
      ],
      [
        `/v1/rooms/${roomId}/messages`,
        '{"text":"hi","actor":{"type":"agent","id":"test:\\u0000","identityProvider":"test"}}',
        '/body/actor/id',
      ],
      ['/v1/events', '{"type":"app.x","data":{"a":"\\u0000"}}', '/body/data/a'],
    ] as const) {
      const body2 = refusal(await send('POST', url, body));
      assert.equal(body2.error, 'invalid_request');
      assert.equal(body2.details?.[0]?.field, field);
      assert.equal(body2.details?.[0]?.code, 'invalid_character');
    }
  });

  test('a lone surrogate anywhere in a JSON body', async () => {
    for (const text of ['"\\ud800"', '"a\\udc00b"', '"\\ud800\\ud800"']) {
      const res = await send('POST', '/v1/events', `{"type":"app.x","data":{"a":${text}}}`);
      assert.equal(refusal(res).details?.[0]?.code, 'invalid_character');
    }
    // A well-formed pair is a character like any other, and is stored.
    const ok = await send('POST', '/v1/events', '{"type":"app.x","data":{"a":"\\ud83d\\ude00"}}');
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('NUL or a lone surrogate in a path id or query value', async () => {
    for (const url of [
      '/v1/webhooks/whe_%00',
      `/v1/rooms/${roomId}/messages?before=%00`,
      '/v1/events?type=app.%00',
      '/v1/events?type=app.%ED%A0%80',
    ]) {
      const res = await send('GET', url);
      assert.ok(res.statusCode === 400 || res.statusCode === 404, `${url}: ${res.statusCode} ${res.body}`);
      assert.notEqual(res.json<ErrorBody>().error, 'internal_error');
    }
    for (const url of ['/v1/rooms?metadata.k=%00', '/v1/events?type=app.%00']) {
      const res = refusal(await send('GET', url));
      assert.equal(res.details?.[0]?.code, 'invalid_character', url);
    }
  });

  test('JSON nested deeper than the limit, in every body', async () => {
    for (const [method, url, body] of [
      ['POST', '/v1/actions/list_rooms', `{"arguments":${nested(3000)}}`],
      ['POST', '/v1/events', `{"type":"app.x","data":${nested(10_000)}}`],
      [
        'PUT',
        `/api/console/tenants/${tenant.tenantId}/modules/chat`,
        `{"enabled":true,"config":${nested(2000)}}`,
      ],
    ] as const) {
      const headers = url.startsWith('/api/console') ? bearer(tenant.ownerToken) : bearer(tenant.apiKey);
      const res = refusal(await send(method, url, body, headers));
      assert.equal(res.details?.[0]?.code, 'too_deep', url);
    }
    // Up to the limit is fine.
    const fine = await send('POST', '/v1/events', `{"type":"app.x","data":${nested(30)}}`);
    assert.equal(fine.statusCode, 201, fine.body);
  });

  test('the MCP endpoint refuses a deep message without showing an internal error', async () => {
    const res = await call(t.app, {
      method: 'POST',
      url: '/mcp',
      headers: {
        ...bearer(tenant.apiKey),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_rooms","arguments":${nested(3000)}}}`,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.doesNotMatch(res.body, /call stack/i);
  });

  test('numbers past what a bigint holds, in query values and cursors', async () => {
    for (const value of ['99999999999999999999999', '1e309', 'Infinity', '-Infinity', '9007199254740993']) {
      for (const name of ['before', 'after']) {
        const res = await send('GET', `/v1/rooms/${roomId}/messages?${name}=${value}`);
        assert.equal(refusal(res).error, 'invalid_request', `${name}=${value}`);
      }
    }
    const cursor = Buffer.from(JSON.stringify({ seq: '9'.repeat(30) })).toString('base64url');
    assert.equal(
      refusal(await send('GET', `/v1/rooms?cursor=${cursor}`)).details?.[0]?.code,
      'invalid_cursor',
    );
    const nulCursor = Buffer.from(JSON.stringify({ id: 'evt_\u0000', order: 'desc' })).toString('base64url');
    assert.equal(
      refusal(await send('GET', `/v1/events?cursor=${nulCursor}`)).details?.[0]?.code,
      'invalid_cursor',
    );
  });

  test('a session token signed with the service key but with broken claims is 401 invalid_token', async () => {
    const good = await connectSession(t, tenant.apiKey);
    assert.equal((await send('GET', '/v1/me', undefined, bearer(good.token))).statusCode, 200);
    const key = t.app.identity.keyRing.signingKey();
    const now = Math.floor(Date.now() / 1000);
    const base = {
      tid: tenant.tenantId,
      act: { id: good.actorId, type: 'end_user', ext: 'test:x', idp: 'test' },
      mods: ['rooms'],
      scp: ['rooms:read'],
    };
    const variants: Record<string, unknown>[] = [
      { ...base, act: undefined },
      { ...base, scp: 'rooms:read' },
      { ...base, tid: `${tenant.tenantId}'` },
      { ...base, act: { ...base.act, type: 'admin' } },
      { ...base, mods: [1] },
    ];
    const sign = (claims: Record<string, unknown>, exp = now + 600) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: SESSION_ALG, kid: key.kid, typ: 'JWT' })
        .setIssuer(SESSION_ISSUER)
        .setAudience(SESSION_AUDIENCE)
        .setSubject(good.actorId)
        .setJti(`ses_${now}`)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .sign(key.privateKey);
    const tokens = [...(await Promise.all(variants.map((claims) => sign(claims)))), await sign(base, 1e20)];
    for (const token of tokens) {
      const res = refusal(await send('GET', '/v1/me', undefined, bearer(token)), 401);
      assert.equal(res.error, 'invalid_token');
    }
  });

  test('an API key in upper case is refused as an API key', async () => {
    const res = refusal(await send('GET', '/v1/me', undefined, bearer(tenant.apiKey.toUpperCase())), 401);
    assert.equal(res.error, 'invalid_api_key');
  });

  test('headers over 16 KiB get 431 with the API error body', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
      });
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    assert.match(answer, /^HTTP\/1\.1 431 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as ErrorBody;
    assert.equal(body.error, 'headers_too_large');
    assert.equal(typeof body.requestId, 'string');
  });
});
