// What the service's Fastify set-up costs per request, piece by piece: server CPU time per GET /healthz
// (the same JSON through the same response schema) of bare Fastify, bare Fastify with one of the service's
// options, and the service's own `createServer` (src/core/http/server.ts) with no plugin on it. CPU per
// request, not req/s: the load generator runs in a child process, so this process's CPU is the servers',
// and it moves far less with load from elsewhere on the machine than throughput does.
//   node --import tsx bench/lib/server-config-cost.ts        (BENCH_ROUNDS, default 5; 3 s per target)
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/core/clock.ts';
import { requestIdFrom } from '../../src/core/http/request-id.ts';
import { requestLogger } from '../../src/core/http/request-logger.ts';
import { createServer } from '../../src/core/http/server.ts';
import { newKeyEntry } from '../../src/core/secrets/keys.ts';
import { machineLine } from './compare.ts';
import { loadSettings, measureOnce, warmUp } from './load.ts';

/** The service's logger options (server.ts) at its production level. */
function withServiceLogger(): FastifyInstance {
  return Fastify({
    logger: { level: 'warn' },
    childLoggerFactory: requestLogger,
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
  }) as unknown as FastifyInstance;
}

/** Six trivial callback hooks where the service has its global ones (3 onRequest, 1 preValidation, 2 onResponse). */
function withSixHooks(): FastifyInstance {
  const app = Fastify({ logger: false });
  for (let i = 0; i < 3; i++) app.addHook('onRequest', (_request, _reply, done) => done());
  app.addHook('preValidation', (_request, _reply, done) => done());
  for (let i = 0; i < 2; i++) app.addHook('onResponse', (_request, _reply, done) => done());
  return app as unknown as FastifyInstance;
}

const config = loadConfig({
  SVC_ENV: 'production',
  LOG_LEVEL: 'warn',
  SVC_ENCRYPTION_KEY: newKeyEntry(Date.now()),
  HOST: '127.0.0.1',
  PORT: '0',
});
const variants: [string, FastifyInstance][] = [
  ['bare Fastify', Fastify({ logger: false }) as unknown as FastifyInstance],
  ['+ service logger', withServiceLogger()],
  [
    '+ service genReqId',
    Fastify({
      logger: false,
      genReqId: (req) => requestIdFrom(req.headers['x-request-id'], Date.now()),
    }) as unknown as FastifyInstance,
  ],
  ['+ 6 empty hooks', withSixHooks()],
  ['createServer', createServer(config, systemClock)],
];

const rounds = Number(process.env.BENCH_ROUNDS ?? '5');
const settings = { ...loadSettings({ durationSeconds: 3, warmupSeconds: 2 }), generator: 'process' as const };
const request = { path: '/healthz' };
const urls: string[] = [];
for (const [, app] of variants) {
  app.get(
    '/healthz',
    {
      schema: {
        response: {
          200: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
        },
      },
    },
    async () => ({ status: 'ok' }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  urls.push(`http://127.0.0.1:${address.port}`);
}
process.stdout.write(
  `server CPU per GET /healthz, ${rounds} alternating round(s) of ${settings.durationSeconds} s\n  ${machineLine()}\n`,
);
try {
  for (const url of urls) await warmUp(url, request, settings);
  const cpu = variants.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, url] of urls.entries()) {
      const before = process.cpuUsage();
      const result = await measureOnce(url, request, settings);
      const used = process.cpuUsage(before);
      cpu[i]?.push((used.user + used.system) / Math.max(1, result.requests));
    }
  }
  for (const [i, [name]] of variants.entries()) {
    const sorted = [...(cpu[i] ?? [])].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    process.stdout.write(
      `  ${name.padEnd(20)} median ${median.toFixed(1).padStart(5)} us   (${sorted.map((x) => x.toFixed(1)).join(' ')})\n`,
    );
  }
} finally {
  await Promise.all(variants.map(([, app]) => app.close()));
}
