// `node --import tsx bench/traces.ts`: the cost of OpenTelemetry traces (docs/operations.md, traces). Two
// `svc start` processes side by side, one without an OTLP endpoint (nothing of OpenTelemetry loaded) and one
// exporting every span to a local OTLP/HTTP receiver in this process; then bench:http's route (`/healthz`,
// which is not traced) and a traced API read (`GET /v1/rooms` with an API key and a sampled `traceparent`:
// a request span, its handler span and its statements' spans, every one exported) against both, in
// alternating rounds. Separate processes, because the SDK's context manager serves the whole process.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type CliServer, startCli, stopCli } from './lib/cli-process.ts';
import { compare, machineLine } from './lib/compare.ts';

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The server's CPU time per request over `count` requests, 8 at a time: on a machine others load, the
 * throughput of a round swings with their load, the CPU a request costs much less.
 */
async function cpuPerRequest(
  server: CliServer,
  path: string,
  headers: Record<string, string>,
  count: number,
) {
  const before = cpuMs(server.pid);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(`${server.baseUrl}${path}`, { headers });
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ((cpuMs(server.pid) - before) * 1000) / count;
}

let exported = 0;
const receiver = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  request.on('end', () => {
    exported += (body.match(/"spanId"/g) ?? []).length;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-traces-')));
const [offDir, onDir] = dirs as [string, string];
const servers: CliServer[] = [];
try {
  // One data directory, made once and copied: both instances hold the same demo tenant and API key.
  await stopCli(await startCli(offDir, { LOG_LEVEL: 'warn' }), 'SIGTERM');
  fs.cpSync(offDir, onDir, { recursive: true });
  const off = await startCli(offDir, { LOG_LEVEL: 'warn' });
  servers.push(off);
  const on = await startCli(onDir, { LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
  servers.push(on);
  const settings = { rounds: Number(process.env.BENCH_ROUNDS ?? '3'), durationSeconds: 5 };
  process.stdout.write(`${machineLine()}\n`);
  const health = await compare({
    title: 'bench:http route (GET /healthz, not traced), tracing on vs off',
    request: { method: 'GET', path: '/healthz' },
    baseline: { name: 'tracing off', baseUrl: off.baseUrl, close: async () => {} },
    subject: { name: 'tracing on', baseUrl: on.baseUrl, close: async () => {} },
    settings,
  });
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const api = await compare({
    title: 'GET /v1/rooms (traced, every span exported), tracing on vs off',
    request: {
      method: 'GET',
      path: '/v1/rooms',
      headers: { authorization: `Bearer ${off.apiKey}`, traceparent },
    },
    baseline: { name: 'tracing off', baseUrl: off.baseUrl, close: async () => {} },
    subject: { name: 'tracing on', baseUrl: on.baseUrl, close: async () => {} },
    settings,
  });
  const cpu: string[] = [];
  for (const [path, headers] of [
    ['/healthz', {}],
    ['/v1/rooms', { authorization: `Bearer ${off.apiKey}`, traceparent }],
  ] as const) {
    const perRequest = { off: [] as number[], on: [] as number[] };
    for (let round = 0; round < settings.rounds; round++) {
      perRequest.off.push(await cpuPerRequest(off, path, headers, 4000));
      perRequest.on.push(await cpuPerRequest(on, path, headers, 4000));
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const [a, b] = [median(perRequest.off), median(perRequest.on)];
    cpu.push(
      `${path}: ${a.toFixed(0)} µs CPU per request off, ${b.toFixed(0)} µs on (+${(((b - a) / a) * 100).toFixed(1)} %)`,
    );
  }
  process.stdout.write(
    `\nserver CPU per request (median of ${settings.rounds} rounds of 4000 requests): ${cpu.join('; ')}\n` +
      `tracing cost: ${((1 - health.throughputRatio) * 100).toFixed(1)} % of throughput on /healthz, ` +
      `${((1 - api.throughputRatio) * 100).toFixed(1)} % on GET /v1/rooms; ${exported} spans exported\n` +
      `${machineLine()}\n`,
  );
} finally {
  for (const server of servers) await stopCli(server, 'SIGTERM');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  receiver.close();
}
