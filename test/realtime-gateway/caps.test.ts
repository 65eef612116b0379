import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../factories.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { TestClient } from './client.ts';
import { sessionToken, tenantWithRoom } from './fixtures.ts';
import { type Instance, startInstance } from './support.ts';

let t: Instance;
before(async () => {
  // Small caps, set the way an operator sets them: through the configuration.
  t = await startInstance({ config: { realtimeMaxConnections: 3, realtimeMaxConnectionsPerActor: 2 } });
});
after(async () => t.close());

const withToken = (token: string) => `${t.wsUrl}?token=${encodeURIComponent(token)}`;

/** An upgrade request that passes authentication and the caps, then fails the handshake (no key). */
async function brokenHandshake(token: string): Promise<string> {
  const url = new URL(withToken(token).replace(/^ws/, 'http'));
  return new Promise<string>((resolve, reject) => {
    const req = request(url, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    req.on('upgrade', () => reject(new Error('the upgrade was accepted')));
    req.on('error', reject);
    req.end();
  });
}

describe('connection caps', () => {
  test('past the per-actor and the instance cap, the upgrade is refused with 429 before it happens', async () => {
    const tenant = await tenantWithRoom(t);
    const alice = await sessionToken(t, tenant.apiKey);
    const bob = await sessionToken(t, tenant.apiKey);
    const carol = await sessionToken(t, tenant.apiKey);

    const aliceTabs = [await TestClient.connect(t.wsUrl, alice), await TestClient.connect(t.wsUrl, alice)];
    const third = await TestClient.refused(withToken(alice));
    assert.equal(third.status, 429);
    assert.equal(third.body.error, 'rate_limited');
    assert.match(third.body.message, /2 realtime connections open on this instance/);
    assert.equal(third.headers['retry-after'], '30');
    assert.equal(typeof third.body.requestId, 'string');

    const bobTab = await TestClient.connect(t.wsUrl, bob);
    const full = await TestClient.refused(withToken(carol));
    assert.equal(full.status, 429);
    assert.equal(full.body.error, 'rate_limited');
    assert.match(full.body.message, /this instance holds 3 realtime connections/);
    assert.equal(full.headers['retry-after'], '5');

    // The connections that were let in work; a closed one gives its slot back.
    await bobTab.join(tenant.roomId);
    await aliceTabs[0]?.close();
    const carolTab = await eventually('a free slot after a close', () =>
      TestClient.connect(t.wsUrl, carol).catch(() => undefined),
    );
    await carolTab.join(tenant.roomId);
    assert.equal((await TestClient.refused(withToken(alice))).status, 429, 'full again');
    for (const client of [aliceTabs[1], bobTab, carolTab]) await client?.close();
  });

  test('a handshake that fails after authentication gives its slot back', async () => {
    const tenant = await tenantWithRoom(t);
    const token = await sessionToken(t, tenant.apiKey);
    for (let i = 0; i < 5; i++) assert.match(await brokenHandshake(token), /^400 .*Sec-WebSocket-Key/);
    const first = await eventually('a connection after the failed handshakes', () =>
      TestClient.connect(t.wsUrl, token).catch(() => undefined),
    );
    const second = await TestClient.connect(t.wsUrl, token);
    await first.close();
    await second.close();
  });

  test('a GET without the upgrade opens nothing and says where to connect and the limits', async () => {
    const tenant = await tenantWithRoom(t);
    const token = await sessionToken(t, tenant.apiKey);
    for (let i = 0; i < 3; i++) {
      const res = await call(t.app, { method: 'GET', url: '/v1/realtime', headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ url: string; limits: Record<string, number> }>();
      assert.match(body.url, /^ws:\/\/.+\/v1\/realtime$/);
      assert.equal(body.limits.maxConnectionsPerActor, 2);
      assert.equal(body.limits.maxFrameBytes, 32 * 1024);
    }
    assert.equal((await call(t.app, { method: 'GET', url: '/v1/realtime' })).statusCode, 401);
    // Those GETs held no slot: the actor still gets both of its connections.
    const tabs = [await TestClient.connect(t.wsUrl, token), await TestClient.connect(t.wsUrl, token)];
    for (const tab of tabs) await tab.close();
  });
});
