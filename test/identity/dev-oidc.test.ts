import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { pkceChallenge } from '../../src/core/auth/dev-oidc-codes.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

const HOST = '127.0.0.1:8080';
const ISSUER = `http://${HOST}/api/auth/dev-oidc`;
const REDIRECT = `http://${HOST}/console/callback`;
const VERIFIER = 'v'.repeat(20) + '-._~'.repeat(4) + 'x'.repeat(20);

function authorizeQuery(overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: 'svc-console',
    redirect_uri: REDIRECT,
    scope: 'openid email profile',
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: pkceChallenge(VERIFIER),
    code_challenge_method: 'S256',
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return query.toString();
}

async function approve(t: TestApp, overrides: Record<string, string | undefined> = {}) {
  const res = await call(t.app, {
    method: 'POST',
    url: '/api/auth/dev-oidc/authorize',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: authorizeQuery(overrides),
  });
  assert.equal(res.statusCode, 302, res.body);
  const location = new URL(String(res.headers.location));
  return { location, cookie: String(res.headers['set-cookie']).split(';')[0] ?? '' };
}

async function redeem(t: TestApp, fields: Record<string, string>) {
  const res = await call(t.app, {
    method: 'POST',
    url: '/api/auth/dev-oidc/token',
    headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'svc-console',
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      ...fields,
    }).toString(),
  });
  return res;
}

describe('the development OpenID Connect provider', () => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  before(async () => {
    t = await buildTestApp({ clock });
  });
  after(() => t.close());

  test('discovery, sign-in page, code with state and iss, tokens the API accepts, a verifiable ID token', async () => {
    const config = await call(t.app, {
      method: 'GET',
      url: '/api/auth/console-config',
      headers: { host: HOST },
    });
    assert.deepEqual(config.json(), {
      issuer: ISSUER,
      clientId: 'svc-console',
      scope: 'openid email profile',
      development: true,
    });
    const discovery = await call(t.app, {
      method: 'GET',
      url: '/api/auth/dev-oidc/.well-known/openid-configuration',
      headers: { host: HOST },
    });
    const doc = discovery.json<Record<string, unknown>>();
    assert.equal(doc.issuer, ISSUER);
    assert.equal(doc.token_endpoint, `${ISSUER}/token`);
    assert.deepEqual(doc.code_challenge_methods_supported, ['S256']);

    const page = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/authorize?${authorizeQuery()}`,
      headers: { host: HOST },
    });
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      /<button type="submit">Sign in as the demo owner \(owner@demo\.local\)<\/button>/,
    );
    assert.doesNotMatch(page.body, /<script|style=/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);

    const { location } = await approve(t);
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('state'), 'state-1');
    assert.equal(location.searchParams.get('iss'), ISSUER);
    const res = await redeem(t, { code: location.searchParams.get('code') ?? '' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const tokens = res.json<{ access_token: string; id_token: string; token_type: string }>();
    assert.equal(tokens.token_type, 'Bearer');

    const user = await call(t.app, {
      method: 'GET',
      url: '/api/auth/user',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(user.statusCode, 200, user.body);
    assert.equal(user.json<{ user: { email: string } }>().user.email, 'owner@demo.local');

    const jwks = await call(t.app, {
      method: 'GET',
      url: '/api/auth/dev-oidc/jwks',
      headers: { host: HOST },
    });
    const { payload } = await jwtVerify(tokens.id_token, createLocalJWKSet(jwks.json()), {
      issuer: ISSUER,
      audience: 'svc-console',
      currentDate: new Date(clock.now()),
    });
    assert.equal(payload.nonce, 'nonce-1');
    assert.equal(payload.email, 'owner@demo.local');
  });

  test('refuses a wrong verifier, a reused code, another redirect_uri or client, and an expired code', async () => {
    const codeOf = async () => (await approve(t)).location.searchParams.get('code') ?? '';
    const refused = async (fields: Record<string, string>, status: number, error: string) => {
      const res = await redeem(t, fields);
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json<{ error: string }>().error, error);
    };

    const wrongVerifier = await codeOf();
    await refused({ code: wrongVerifier, code_verifier: 'w'.repeat(43) }, 400, 'invalid_grant');
    // Spent by the failed attempt: the right verifier no longer helps.
    await refused({ code: wrongVerifier }, 400, 'invalid_grant');

    const used = await codeOf();
    assert.equal((await redeem(t, { code: used })).statusCode, 200);
    await refused({ code: used }, 400, 'invalid_grant');

    await refused(
      { code: await codeOf(), redirect_uri: `http://${HOST}/console/elsewhere` },
      400,
      'invalid_grant',
    );
    await refused({ code: await codeOf(), client_id: 'someone-else' }, 401, 'invalid_client');
    await refused({ code: await codeOf(), grant_type: 'password' }, 400, 'unsupported_grant_type');

    const late = await codeOf();
    clock.advance(61_000);
    await refused({ code: late }, 400, 'invalid_grant');
  });

  test('never redirects off the console, and sends other faults back as OAuth errors', async () => {
    for (const redirect of ['https://evil.example/console/callback', `http://${HOST}/docs`, 'not a url']) {
      const res = await call(t.app, {
        method: 'GET',
        url: `/api/auth/dev-oidc/authorize?${authorizeQuery({ redirect_uri: redirect })}`,
        headers: { host: HOST },
      });
      assert.equal(res.statusCode, 400, redirect);
      assert.equal(res.headers.location, undefined);
    }
    const other = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/authorize?${authorizeQuery({ client_id: 'intruder' })}`,
      headers: { host: HOST },
    });
    assert.equal(other.statusCode, 400);
    const noPkce = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/authorize?${authorizeQuery({ code_challenge: undefined })}`,
      headers: { host: HOST },
    });
    assert.equal(noPkce.statusCode, 302);
    const back = new URL(String(noPkce.headers.location));
    assert.equal(back.searchParams.get('error'), 'invalid_request');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('remembers the browser until it signs out there', async () => {
    const { cookie } = await approve(t);
    const again = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/authorize?${authorizeQuery()}`,
      headers: { host: HOST, cookie },
    });
    assert.equal(again.statusCode, 302);
    assert.ok(new URL(String(again.headers.location)).searchParams.get('code'));
    const out = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/logout?post_logout_redirect_uri=${encodeURIComponent(`http://${HOST}/console/signed-out`)}`,
      headers: { host: HOST, cookie },
    });
    assert.equal(out.statusCode, 302);
    assert.equal(out.headers.location, `http://${HOST}/console/signed-out`);
    const asked = await call(t.app, {
      method: 'GET',
      url: `/api/auth/dev-oidc/authorize?${authorizeQuery()}`,
      headers: { host: HOST, cookie },
    });
    assert.equal(asked.statusCode, 200, 'the sign-in page again');
  });
});

describe('the development provider is off', () => {
  for (const [name, config] of [
    ['in production', { env: 'production' as const }],
    ['with another provider', { consoleOidc: { issuer: 'https://idp.example.test/', clientId: 'console' } }],
  ] as const) {
    test(name, async () => {
      const t = await buildTestApp({ config });
      try {
        for (const [method, url] of [
          ['GET', '/api/auth/dev-oidc/.well-known/openid-configuration'],
          ['GET', `/api/auth/dev-oidc/authorize?${authorizeQuery()}`],
          ['POST', '/api/auth/dev-oidc/authorize'],
          ['POST', '/api/auth/dev-oidc/token'],
          ['GET', '/api/auth/dev-oidc/jwks'],
        ] as const) {
          const res = await call(t.app, {
            method,
            url,
            headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
            payload: method === 'POST' ? authorizeQuery() : undefined,
          });
          assert.equal(res.statusCode, 404, `${method} ${url}`);
        }
        const config = await call(t.app, {
          method: 'GET',
          url: '/api/auth/console-config',
          headers: { host: HOST },
        });
        const body = config.json<{ issuer: string | null; development: boolean }>();
        assert.equal(body.development, false);
        assert.equal(body.issuer, name === 'in production' ? null : 'https://idp.example.test/');
      } finally {
        await t.close();
      }
    });
  }
});
