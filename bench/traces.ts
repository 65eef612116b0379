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
  process.stdout.write(
    `\ntracing cost: ${((1 - health.throughputRatio) * 100).toFixed(1)} % of throughput on /healthz, ` +
      `${((1 - api.throughputRatio) * 100).toFixed(1)} % on GET /v1/rooms; ${exported} spans exported\n` +
      `${machineLine()}\n`,
  );
} finally {
  for (const server of servers) await stopCli(server, 'SIGTERM');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  receiver.close();
}
