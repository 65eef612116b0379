// `svc start` as a user runs it (`node bin/svc.mjs start`), in a child process on a loopback port, with the
// clock running from the spawn: when its banner appears, when /readyz first answers 200, how much memory
// it holds, and how long it takes to stop.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Nothing here may wait longer than this. */
const DEADLINE_MS = 90_000;

export interface CliServer {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** The demo tenant's API key, as the banner prints it. */
  apiKey: string;
  /** Spawn to the banner `svc listening on ...` (printed after listen). */
  listeningMs: number;
  /** Spawn to the first `200` from /readyz. */
  readyMs: number;
  output(): string;
}

/** Starts `svc start` on `dataDir` (embedded database, development, port 0) and waits until it is ready. */
export async function startCli(dataDir: string, env: Record<string, string> = {}): Promise<CliServer> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'SVC_ENV', 'SVC_PUBLIC_URL', 'NODE_OPTIONS'])
    delete childEnv[name];
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/svc.mjs', 'start'], {
    cwd: ROOT,
    env: { ...childEnv, SVC_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const banner = await Promise.race([
      waitFor(() => /svc listening on (http:\/\/\S+)/.exec(out)?.[1], 'the banner'),
      exited.then((code) => {
        throw new Error(`svc start exited (${code}) before listening:\n${out}`);
      }),
    ]);
    const listeningMs = performance.now() - started;
    const apiKey = await waitFor(() => /apiKey\s+(\S+)/.exec(out)?.[1], 'the demo API key');
    await waitFor(async () => ((await status(`${banner}/readyz`)) === 200 ? true : undefined), '/readyz');
    const readyMs = performance.now() - started;
    if (child.pid === undefined) throw new Error('no pid');
    return { child, pid: child.pid, baseUrl: banner, apiKey, listeningMs, readyMs, output: () => out };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Sends `signal` and waits for the exit: milliseconds from the signal to the exit. */
export async function stopCli(server: CliServer, signal: 'SIGTERM' | 'SIGKILL'): Promise<number> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = performance.now();
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
  await exited;
  clearTimeout(timer);
  return performance.now() - started;
}

/** Resident memory (VmRSS) and its peak (VmHWM) of a process, in MiB, from /proc. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

async function status(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const until = performance.now() + DEADLINE_MS;
  while (performance.now() < until) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(5);
  }
  throw new Error(`no ${what} within ${DEADLINE_MS / 1000} s`);
}
