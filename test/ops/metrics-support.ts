import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Config, loadConfig } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import type { TestApp } from '../helper.ts';
import { testConfig } from '../helper.ts';
import { isolatedDatabase } from '../support/isolated-database.ts';

/** A runtime started the way `svc start` does, on a database of its own, listening on port 0, with its metrics listener. */
export interface MetricsInstance extends TestApp {
  runtime: Runtime;
  /** `http://127.0.0.1:<port>` of the public app. */
  publicUrl: string;
  /** `http://host:port` of the internal listener. */
  metricsUrl: string;
}

export async function startMetricsInstance(overrides: Partial<Config> = {}): Promise<MetricsInstance> {
  const config = testConfig({ metrics: { port: 0, host: '127.0.0.1' }, ...overrides });
  // A database of its own: its webhook worker must deliver (and count) this test's deliveries only, and
  // the queue gauges read the whole deliveries table; on the shared server database the other test
  // processes' workers and deliveries would be counted too.
  const { db, close: closeDatabase } = await isolatedDatabase('metrics');
  const runtime = await createRuntime(config, { db, workers: true });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const address = runtime.app.server.address() as AddressInfo;
  if (runtime.metrics === undefined) throw new Error('the metrics listener did not start');
  return {
    app: runtime.app,
    db,
    config,
    runtime,
    publicUrl: `http://127.0.0.1:${address.port}`,
    metricsUrl: runtime.metrics.url,
    async close() {
      await runtime.close();
      await closeDatabase();
    },
  };
}

/** The config `svc start` would read from these variables (the listener's part of it). */
export function metricsSettings(env: Record<string, string>): Config['metrics'] {
  return loadConfig({ SVC_ENV: 'test', ...env }).metrics;
}

export async function scrape(metricsUrl: string): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** Sample lines (one per series), comments left out. */
export function seriesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

/** Every metric family named by a `# TYPE` line. */
export function familiesOf(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((line) => line.startsWith('# TYPE '))
      .map((line) => line.split(' ')[2] ?? ''),
  );
}

/** The samples of one family (its `_bucket`/`_sum`/`_count` lines included). */
export function samplesOf(text: string, family: string): string[] {
  return seriesOf(text).filter((line) => line === family || /^[a-z_]+/.exec(line)?.[0]?.startsWith(family));
}

/** A local webhook receiver answering 200 to every delivery; `received` counts them. */
export async function startReceiver(): Promise<{
  url: string;
  received: () => number;
  close(): Promise<void>;
}> {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
