import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { unusedPort } from '../support/ports.ts';

/** A throw-away redis-server on a free loopback port, no persistence; `stop()` ends it. */
async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await unusedPort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) resolve();
    });
    exited.then(() => reject(new Error(`redis-server exited:\n${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A configured dependency that does not answer: readiness says so, and requests that need it answer
 * 503 `service_unavailable` (bounded by the Redis command limits) instead of hanging or a 500.
 */
describe('REDIS_URL configured, Redis stopped while the service runs', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let roomId: string;
  const key = () => ({ 'x-api-key': tenant.apiKey });

  before(async () => {
    redis = await startRedis();
    t = await buildTestApp({ config: { redisUrl: redis.url } });
    tenant = await createTestTenant(t);
    const room = await call(t.app, { method: 'POST', url: '/v1/rooms', headers: key(), payload: {} });
    assert.equal(room.statusCode, 201, room.body);
    roomId = room.json<{ id: string }>().id;
    const ready = await call(t.app, { method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    const presence = await call(t.app, {
      method: 'GET',
      url: `/v1/rooms/${roomId}/presence`,
      headers: key(),
    });
    assert.equal(presence.statusCode, 200, presence.body);
    await redis.stop();
  });
  after(async () => {
    await t.close();
    await redis.stop();
  });

  test('GET /readyz -> 503 service_unavailable naming Redis', async () => {
    const res = await call(t.app, { method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 503, res.body);
    const body = res.json<{ error: string; message: string; requestId: string }>();
    assert.equal(body.error, 'service_unavailable');
    assert.match(body.message, /Redis/);
    assert.ok(body.requestId);
  });

  test('GET /v1/rooms/:id/presence -> 503 service_unavailable, not a hang or a 500', async () => {
    const res = await call(t.app, { method: 'GET', url: `/v1/rooms/${roomId}/presence`, headers: key() });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json<{ error: string }>().error, 'service_unavailable');
  });
});

describe('without REDIS_URL', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ config: { redisUrl: undefined } });
  });
  after(() => t.close());

  test('GET /readyz -> 200 with the database and the in-memory realtime backplane', async () => {
    const res = await call(t.app, { method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: 'ready', database: t.db.kind, realtime: 'memory' });
  });
});
