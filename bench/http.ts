// `npm run bench:http`: the service's cheapest route against a bare node:http server answering the same JSON.
// The ratio is the cost of the framework, hooks and serialization on this machine.
import { compare } from './lib/compare.ts';
import { jsonResponder, startBareServer, startService } from './lib/targets.ts';

function positiveRounds(raw: string): number {
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`BENCH_ROUNDS: expected a whole number >= 1, got ${raw}`);
  return rounds;
}

const service = await startService();
const bare = await startBareServer(jsonResponder({ status: 'ok' }));
try {
  await compare({
    title: 'bench:http',
    request: { method: 'GET', path: '/healthz' },
    baseline: bare,
    subject: service,
    // Alternating short rounds, so load from elsewhere on the machine hits both targets alike.
    settings: { rounds: positiveRounds(process.env.BENCH_ROUNDS ?? '3'), durationSeconds: 5 },
  });
} finally {
  await Promise.all([service.close(), bare.close()]);
}
