import fs from 'node:fs';
import os from 'node:os';
import {
  type LoadResult,
  type LoadSettings,
  loadSettings,
  measureOnce,
  type RequestSpec,
  warmUp,
} from './load.ts';
import type { Target } from './targets.ts';

export type NamedResult = { name: string } & LoadResult;

export interface Comparison {
  title: string;
  settings: LoadSettings;
  /** Medians over the rounds. */
  baseline: NamedResult;
  subject: NamedResult;
  /** Median over the rounds of subject req/s divided by baseline req/s (1 = as fast as the baseline). */
  throughputRatio: number;
  /** With the load generator in a child process: the medians of CPU per request (µs), baseline and subject. */
  cpuPerRequestUs?: [number, number];
}

export interface CompareOptions {
  title: string;
  request: RequestSpec;
  /** The reference measured in the same run, e.g. a bare node:http server. */
  baseline: Target;
  subject: Target;
  settings?: Partial<LoadSettings>;
}

/** Checks both targets answer the request alike, so the comparison measures like for like. */
async function probe(target: Target, request: RequestSpec): Promise<{ status: number; body: string }> {
  const res = await fetch(`${target.baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { status: res.status, body: await res.text() };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? upper) + upper) / 2;
}

export function medianResult(name: string, runs: LoadResult[]): NamedResult {
  const of = (pick: (r: LoadResult) => number) => median(runs.map(pick));
  return {
    name,
    requestsPerSecond: of((r) => r.requestsPerSecond),
    latencyP50Ms: of((r) => r.latencyP50Ms),
    latencyP99Ms: of((r) => r.latencyP99Ms),
    requests: runs.reduce((n, r) => n + r.requests, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

export function row(cells: string[]): string {
  const widths = [22, 12, 10, 10, 10];
  return cells.map((cell, i) => cell.padEnd(widths[i] ?? 10)).join('');
}

export function resultRow(label: string, result: LoadResult): string {
  return row([
    label,
    result.requestsPerSecond.toFixed(0),
    String(result.latencyP50Ms),
    String(result.latencyP99Ms),
    String(result.errors + result.non2xx),
  ]);
}

/**
 * What one system call costs here: the median of five batches of 2,000 one-byte writes to /dev/null, in
 * ns (undefined where there is none). Two VMs of one image differed 2-3x in it (stop 41's note), and every
 * figure that crosses the kernel with it, so it goes beside the figures; measured once per process.
 */
let syscallNs: number | undefined | null = null;
function syscallCost(): number | undefined {
  if (syscallNs !== null) return syscallNs;
  syscallNs = undefined;
  try {
    const fd = fs.openSync('/dev/null', 'w');
    const byte = Buffer.alloc(1);
    const batches: number[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 2_000; i++) fs.writeSync(fd, byte);
      batches.push(Number(process.hrtime.bigint() - started) / 2_000);
    }
    fs.closeSync(fd);
    syscallNs = median(batches);
  } catch {
    // No /dev/null (not Linux or macOS): the line goes without it.
  }
  return syscallNs;
}

/** When and where figures were taken, for the record next to them. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
  const syscall = syscallCost();
  const kernel = syscall === undefined ? '' : `  write syscall ${Math.round(syscall)} ns`;
  return `${new Date().toISOString()}  node ${process.version}  ${os.cpus().length} x ${cpu}  ${os.platform()} ${os.release()}  load ${load}${kernel}`;
}

/**
 * Measures baseline and subject with identical settings, alternating them for `rounds` rounds, and prints
 * req/s, p50/p99 and the ratio. Fails when the two answer differently or when any request errors or is not 2xx.
 */
export async function compare(options: CompareOptions): Promise<Comparison> {
  const settings = loadSettings(options.settings);
  const targets = [options.baseline, options.subject] as const;
  const [base, subject] = await Promise.all(targets.map((target) => probe(target, options.request)));
  if (
    base === undefined ||
    subject === undefined ||
    base.status !== subject.status ||
    base.body !== subject.body
  ) {
    throw new Error(
      `targets answer differently: ${options.baseline.name} ${base?.status} ${base?.body} vs ${options.subject.name} ${subject?.status} ${subject?.body}`,
    );
  }

  const method = options.request.method ?? 'GET';
  process.stdout.write(
    `\n${options.title}: ${method} ${options.request.path}\n` +
      `  autocannon in a ${settings.generator === 'process' ? 'child process' : 'worker thread'}, ${settings.connections} connections, pipelining ${settings.pipelining}, loopback\n` +
      `  ${settings.warmupSeconds} s warm-up per target, then ${settings.rounds} alternating round(s) of ${settings.durationSeconds} s per target\n` +
      `  ${machineLine()}\n\n`,
  );
  for (const target of targets) await warmUp(target.baseUrl, options.request, settings);

  process.stdout.write(`${row(['round / target', 'req/s', 'p50 ms', 'p99 ms', 'errors'])}\n`);
  const runs: [LoadResult[], LoadResult[]] = [[], []];
  const ratios: number[] = [];
  // With the load generator in a process of its own, this process's CPU is the targets' (see
  // compare-reference.ts): per request, a figure machine load moves far less than req/s.
  const cpuPerRequest = settings.generator === 'process';
  const cpu: [number[], number[]] = [[], []];
  for (let round = 1; round <= settings.rounds; round++) {
    const pair: LoadResult[] = [];
    for (const [i, target] of targets.entries()) {
      const before = process.cpuUsage();
      const result = await measureOnce(target.baseUrl, options.request, settings);
      const used = process.cpuUsage(before);
      const perRequest = (used.user + used.system) / Math.max(1, result.requests);
      cpu[i]?.push(perRequest);
      runs[i]?.push(result);
      pair.push(result);
      const note = cpuPerRequest ? `cpu ${perRequest.toFixed(1)} us/req` : '';
      process.stdout.write(`${resultRow(`${round}  ${target.name}`, result)}${note}\n`);
    }
    const [b, s] = pair;
    if (b !== undefined && s !== undefined) ratios.push(s.requestsPerSecond / b.requestsPerSecond);
  }

  const baseline = medianResult(options.baseline.name, runs[0]);
  const measured = medianResult(options.subject.name, runs[1]);
  const throughputRatio = median(ratios);
  process.stdout.write(`\n${resultRow(`median ${baseline.name}`, baseline)}\n`);
  process.stdout.write(`${resultRow(`median ${measured.name}`, measured)}\n`);
  process.stdout.write(
    `\nratio ${measured.name}/${baseline.name}: ${throughputRatio.toFixed(2)} of the baseline's throughput` +
      ` (median of ${ratios.length} paired round(s); p99 ${measured.latencyP99Ms} ms vs ${baseline.latencyP99Ms} ms)\n`,
  );
  const cpuMedians = cpu.map((values) => median(values));
  if (cpuPerRequest) {
    process.stdout.write(
      `cpu per request (medians): ${targets.map((t, i) => `${t.name} ${(cpuMedians[i] ?? 0).toFixed(1)} us`).join(', ')}\n`,
    );
  }
  const failed = [baseline, measured].filter((r) => r.errors > 0 || r.non2xx > 0);
  if (failed.length > 0) {
    throw new Error(
      `requests failed during the run: ${failed.map((r) => `${r.name} ${r.errors} errors, ${r.non2xx} non-2xx`).join('; ')}`,
    );
  }
  return {
    title: options.title,
    settings,
    baseline,
    subject: measured,
    throughputRatio,
    ...(cpuPerRequest ? { cpuPerRequestUs: cpuMedians as [number, number] } : {}),
  };
}
