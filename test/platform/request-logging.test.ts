import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.ts';
import { systemClock } from '../../src/core/clock.ts';
import { createServer } from '../../src/core/http/server.ts';
import { testConfig } from '../helper.ts';

type Line = Record<string, unknown> & { msg?: string; level: number };

/** A server at `level` whose log lines are kept, with a route that logs through the request and the app. */
async function loggingServer(level: Config['logLevel']): Promise<{ app: FastifyInstance; lines: Line[] }> {
  const lines: Line[] = [];
  const logStream = { write: (text: string) => lines.push(JSON.parse(text) as Line) };
  const app = createServer(testConfig({ logLevel: level }), systemClock, { logStream });
  app.get('/logs', async (request) => {
    request.log.info('request info');
    request.log.warn({ part: 'request' }, 'request warning');
    app.log.error('app error');
    return { ok: true };
  });
  await app.ready();
  return { app, lines };
}

const named = (lines: Line[], msg: string) => lines.filter((line) => line.msg === msg);

describe('what a request logs, at each level', () => {
  test('at warn: the request logger writes with the request id, the app logger without; no request lines', async () => {
    const { app, lines } = await loggingServer('warn');
    try {
      const res = await app.inject({ method: 'GET', url: '/logs', headers: { 'x-request-id': 'logged-1' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-request-id'], 'logged-1');
      const [warning] = named(lines, 'request warning');
      assert.equal(warning?.requestId, 'logged-1');
      assert.equal(warning?.part, 'request');
      assert.equal(warning?.level, 40);
      const [error] = named(lines, 'app error');
      assert.equal(error?.level, 50);
      assert.equal(error?.requestId, undefined);
      assert.deepEqual(named(lines, 'request info'), [], 'below the level: not written');
      assert.deepEqual(named(lines, 'incoming request'), []);
      assert.deepEqual(named(lines, 'request completed'), []);
    } finally {
      await app.close();
    }
  });

  test('at debug: every request and its answer are logged with its id, as are its own lines', async () => {
    const { app, lines } = await loggingServer('debug');
    try {
      await app.inject({ method: 'GET', url: '/logs', headers: { 'x-request-id': 'logged-2' } });
      for (const msg of ['incoming request', 'request completed', 'request info', 'request warning']) {
        assert.equal(named(lines, msg)[0]?.requestId, 'logged-2', msg);
      }
      assert.equal(named(lines, 'request completed')[0]?.res !== undefined, true);
    } finally {
      await app.close();
    }
  });

  test('silent: nothing is written', async () => {
    const { app, lines } = await loggingServer('silent');
    try {
      const res = await app.inject({ method: 'GET', url: '/logs' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(lines, []);
    } finally {
      await app.close();
    }
  });
});
