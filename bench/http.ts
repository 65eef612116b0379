// `npm run bench:http`: the service's cheapest route against a bare node:http server answering the same JSON.
// The ratio is the cost of the framework, hooks and serialization on this machine (goal, issue 33: >= 0.9); bare
// Fastify answering the same JSON, measured in the same rounds, splits it into Fastify's share and the service's. Then the same route
// with metrics on (SVC_METRICS_PORT) against metrics off, in the same run: the cost of request timing
// (goal: at most 3 % of throughput), and the series /metrics holds after the run and after a scanner flood.
import { randomUUID } from 'node:crypto';
import { startBareFastify } from './lib/bare-fastify.ts';
import { compare } from './lib/compare.ts';
import { compareWithReference } from './lib/compare-reference.ts';
import { jsonResponder, type ServiceTarget, startBareServer, startService } from './lib/targets.ts';

function positiveRounds(raw: string): number {
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`BENCH_ROUNDS: expected a whole number >= 1, got ${raw}`);
  return rounds;
}

/** Series (sample lines) of the service's /metrics, all and HTTP ones. */
async function seriesCount(target: ServiceTarget): Promise<{ all: number; http: number }> {
  const text = (await target.app.services.metrics?.render()) ?? '';
  const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return { all: series.length, http: series.filter((line) => line.startsWith('svc_http_')).length };
}

const settings = { rounds: positiveRounds(process.env.BENCH_ROUNDS ?? '3'), durationSeconds: 5 };
const request = { method: 'GET', path: '/healthz' } as const;
const service = await startService();
const bare = await startBareServer(jsonResponder({ status: 'ok' }));
const bareFastify = await startBareFastify(request, { status: 'ok' });
const metered = await startService({ SVC_METRICS_PORT: '0' });
try {
  // Alternating short rounds, so load from elsewhere on the machine hits both targets alike.
  const plain = await compareWithReference({
    title: 'bench:http',
    request,
    baseline: bare,
    reference: bareFastify,
    subject: service,
    settings,
  });
  const ratio = plain.throughputRatio;
  process.stdout.write(`goal: ratio >= 0.9 — ${ratio >= 0.9 ? 'met' : 'NOT met'} (${ratio.toFixed(2)})\n`);

  const before = await seriesCount(metered);
  const overhead = await compare({
    title: 'bench:http, metrics on vs off',
    request,
    baseline: { ...service, name: 'svc metrics off' },
    subject: { ...metered, name: 'svc metrics on' },
    settings,
  });
  const afterBench = await seriesCount(metered);
  for (let i = 0; i < 10_000; i++) {
    await fetch(`${metered.baseUrl}/${randomUUID()}/${i.toString(36)}.php`, {
      method: i % 2 ? 'POST' : 'GET',
    });
  }
  const afterFlood = await seriesCount(metered);
  const cost = (1 - overhead.throughputRatio) * 100;
  const cpu = overhead.cpuPerRequestUs;
  const cpuCost =
    cpu === undefined
      ? ''
      : `; CPU per request ${cpu[1].toFixed(1)} vs ${cpu[0].toFixed(1)} µs: ${((cpu[1] / cpu[0] - 1) * 100).toFixed(1)} % more`;
  process.stdout.write(
    `\nmetrics cost: ${cost.toFixed(1)} % of throughput (goal <= 3 %)${cpuCost}\n` +
      `/metrics series: ${before.all} before the run (http ${before.http}), ${afterBench.all} after it (http ${afterBench.http}), ` +
      `${afterFlood.all} after 10,000 random paths (http ${afterFlood.http})\n`,
  );
} finally {
  await Promise.all([service.close(), bare.close(), bareFastify.close(), metered.close()]);
}
