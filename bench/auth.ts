// `npm run bench:auth`: GET /v1/me through the whole service — authentication, the route, serialization —
// with an API key and with a session token, each against a bare node:http server answering the very same
// JSON in the same run, on the embedded database. Goals (issue 33): API key >= 0.8 of the baseline,
// session token >= 0.75. Bare Fastify answering the same JSON, in the same rounds, shows how much of the gap is
// Fastify's own.
import { startBareFastify } from './lib/bare-fastify.ts';
import { compareWithReference, type ReferencedComparison } from './lib/compare-reference.ts';
import { jsonResponder, type ServiceTarget, startBareServer, startService } from './lib/targets.ts';
import { createBenchTenant } from './lib/tenant.ts';

const GOALS: Record<string, number> = { 'API key': 0.8, 'session token': 0.75 };

async function credentials(service: ServiceTarget): Promise<{ apiKey: string; sessionToken: string }> {
  const { apiKey: key } = await createBenchTenant(service.db);
  const res = await fetch(`${service.baseUrl}/v1/runtime/connect`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      modules: ['rooms', 'chat'],
      actor: { type: 'end_user', id: 'bench:user-1', identityProvider: 'bench' },
    }),
  });
  if (res.status !== 201) throw new Error(`runtime/connect answered ${res.status}: ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { apiKey: key, sessionToken: token };
}

/** The body the service answers, so the baseline sends byte-for-byte the same JSON. */
async function bodyOf(service: ServiceTarget, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(`${service.baseUrl}/v1/me`, { headers });
  if (res.status !== 200) throw new Error(`/v1/me answered ${res.status}: ${await res.text()}`);
  return res.json();
}

function positiveRounds(raw: string): number {
  const rounds = Number(raw);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`BENCH_ROUNDS: expected a whole number >= 1, got ${raw}`);
  return rounds;
}
const rounds = positiveRounds(process.env.BENCH_ROUNDS ?? '3');

const service = await startService();
const results: { name: string; comparison: ReferencedComparison }[] = [];
try {
  const { apiKey, sessionToken } = await credentials(service);
  for (const [name, headers] of [
    ['API key', { authorization: `Bearer ${apiKey}` }],
    ['session token', { authorization: `Bearer ${sessionToken}` }],
  ] as const) {
    const body = await bodyOf(service, headers);
    const request = { method: 'GET', path: '/v1/me', headers } as const;
    const bare = await startBareServer(jsonResponder(body));
    const bareFastify = await startBareFastify(request, body);
    try {
      const comparison = await compareWithReference({
        title: `bench:auth ${name}`,
        request,
        baseline: bare,
        reference: bareFastify,
        subject: service,
        // Alternating short rounds, so load from elsewhere on the machine hits both targets alike.
        settings: { rounds, durationSeconds: 5 },
      });
      results.push({ name, comparison });
    } finally {
      await Promise.all([bare.close(), bareFastify.close()]);
    }
  }
} finally {
  await service.close();
}

process.stdout.write(`\nsummary: GET /v1/me on the embedded database (medians of ${rounds} round(s))\n`);
for (const { name, comparison } of results) {
  process.stdout.write(
    `  ${name.padEnd(14)} svc ${comparison.subject.requestsPerSecond.toFixed(0).padStart(6)} req/s   ` +
      `node:http ${comparison.baseline.requestsPerSecond.toFixed(0).padStart(6)} req/s   ` +
      `ratio ${comparison.throughputRatio.toFixed(2)}\n` +
      `  ${''.padEnd(14)} bare Fastify ${comparison.reference.requestsPerSecond.toFixed(0).padStart(6)} req/s   ` +
      `svc/bare Fastify ${comparison.subjectToReference.toFixed(2)}   bare Fastify/node:http ${comparison.referenceToBaseline.toFixed(2)}\n`,
  );
}
for (const { name, comparison } of results) {
  const goal = GOALS[name] ?? 1;
  const ratio = comparison.throughputRatio;
  process.stdout.write(
    `goal: ${name} ratio >= ${goal} — ${ratio >= goal ? 'met' : 'NOT met'} (${ratio.toFixed(2)})\n`,
  );
}
