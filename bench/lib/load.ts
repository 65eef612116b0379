import { fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';

/** One kind of request, fired over and over. */
export interface RequestSpec {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  pipelining: number;
  /** Comparisons alternate the targets this many times and report medians, so drift hits both alike. */
  rounds: number;
  /**
   * Where the load generator runs: `process` (a child process) or `thread` (a worker thread, the default,
   * of the benchmark's own process, which shares that process with an in-process service).
   */
  generator: 'process' | 'thread';
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  errors: number;
  non2xx: number;
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: expected a whole number, got ${raw}`);
  return value;
}

function generatorSetting(fallback: LoadSettings['generator']): LoadSettings['generator'] {
  const raw = process.env.BENCH_GENERATOR;
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'process' && raw !== 'thread')
    throw new Error(`BENCH_GENERATOR: expected process or thread, got ${raw}`);
  return raw;
}

/**
 * Defaults sized for a 2-core machine: the load generator has one worker thread, the server the main one.
 * BENCH_CONNECTIONS, BENCH_DURATION_S, BENCH_WARMUP_S and BENCH_PIPELINING override them.
 */
export function loadSettings(defaults: Partial<LoadSettings> = {}): LoadSettings {
  return {
    connections: positiveInt('BENCH_CONNECTIONS', defaults.connections ?? 50),
    durationSeconds: positiveInt('BENCH_DURATION_S', defaults.durationSeconds ?? 10),
    warmupSeconds: positiveInt('BENCH_WARMUP_S', defaults.warmupSeconds ?? 3),
    pipelining: positiveInt('BENCH_PIPELINING', defaults.pipelining ?? 1),
    // Not from the environment: benchmarks that loop over rounds themselves read BENCH_ROUNDS.
    rounds: Math.max(1, defaults.rounds ?? 1),
    generator: generatorSetting(defaults.generator ?? 'thread'),
  };
}

async function fire(
  baseUrl: string,
  spec: RequestSpec,
  settings: LoadSettings,
  seconds: number,
): Promise<autocannon.Result> {
  const options: autocannon.Options = {
    url: `${baseUrl}${spec.path}`,
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    ...(spec.body === undefined ? {} : { body: spec.body }),
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
  };
  // A worker thread keeps the generator off the event loop of an in-process server.
  if (settings.generator === 'thread') return autocannon({ ...options, workers: 1 });
  const child = fork(path.join(import.meta.dirname, 'load-child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as autocannon.Result));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`load generator exited ${code} without a result`)));
    child.send(options);
  });
}

/** Load without measuring, so JIT and caches are warm before the figures count. */
export async function warmUp(baseUrl: string, spec: RequestSpec, settings: LoadSettings): Promise<void> {
  if (settings.warmupSeconds > 0) await fire(baseUrl, spec, settings, settings.warmupSeconds);
}

/** One measured run of `durationSeconds`. */
export async function measureOnce(
  baseUrl: string,
  spec: RequestSpec,
  settings: LoadSettings,
): Promise<LoadResult> {
  const result = await fire(baseUrl, spec, settings, settings.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Warms the target up, then measures it once. */
export async function measure(
  baseUrl: string,
  spec: RequestSpec,
  settings: LoadSettings,
): Promise<LoadResult> {
  await warmUp(baseUrl, spec, settings);
  return measureOnce(baseUrl, spec, settings);
}
