import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { expectError } from './support.ts';

describe('repeated authentication failures from one address', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp({ config: { authFailureLimit: 3 } });
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  const me = (headers: Record<string, string>, remoteAddress: string) =>
    call(t.app, { method: 'GET', url: '/v1/me', headers, remoteAddress });

  test('-> 429 rate_limited with Retry-After, for that address only', async () => {
    const attacker = '203.0.113.7';
    for (let i = 0; i < 3; i++)
      expectError(await me({ 'x-api-key': `svc_live_bad${i}` }, attacker), 401, 'invalid_api_key');
    const limited = await me({ 'x-api-key': 'svc_live_bad' }, attacker);
    expectError(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    // While limited, even a good key from that address waits.
    expectError(await me({ 'x-api-key': tenant.apiKey }, attacker), 429, 'rate_limited');
    // Another address is unaffected.
    assert.equal((await me({ 'x-api-key': tenant.apiKey }, '203.0.113.8')).statusCode, 200);
  });

  test('malformed and forged tokens count as failures too; a missing credential does not', async () => {
    const address = '203.0.113.9';
    for (let i = 0; i < 5; i++) expectError(await me({}, address), 401, 'unauthorized');
    expectError(await me(bearer('garbage'), address), 401, 'invalid_token');
    expectError(await me(bearer('a.b.c'), address), 401, 'invalid_token');
    expectError(await me(bearer('svc_live_x'), address), 401, 'invalid_api_key');
    expectError(await me(bearer(tenant.apiKey), address), 429, 'rate_limited');
  });
});
