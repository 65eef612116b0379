// One instance's restart in the rolling-restart run (rolling-restart.deploy.ts): SIGTERM, what it measured,
// and the instance started again.
import { performance } from 'node:perf_hooks';
import type { Cluster, Instance } from './cluster.ts';

export interface Restart {
  name: string;
  readinessFlipMs: number;
  /** From SIGTERM to the last batch of sockets closed. */
  socketsDrainedMs: number;
  /** From SIGTERM to the workers stopped with their leases released. */
  workersDrainedMs: number;
  exitMs: number;
  exitCode: number | null;
}

/** How many starts were tried again after a start that failed. */
export interface StartRetries {
  count: number;
}

/** SIGTERM, then: when readiness first answered 503, when the drain ended (its log line), the exit. */
export async function restart(
  cluster: Cluster,
  instance: Instance,
  retries: StartRetries,
): Promise<{ figures: Restart; next: Instance }> {
  const readyz = `http://127.0.0.1:${instance.port}/readyz`;
  const began = performance.now();
  instance.child.kill('SIGTERM');
  // A probe every 5 ms, none waiting for the one before (a probe in flight when the signal came may take
  // long to answer on a busy machine): the flip is when the first probe answered 503 was sent, and no probe
  // sent after it may answer 200.
  const probes: Promise<{ sentMs: number; status: number }>[] = [];
  while (performance.now() - began < 1000) {
    const sentMs = performance.now() - began;
    probes.push(
      fetch(readyz, { signal: AbortSignal.timeout(10_000) })
        .then((r) => ({ sentMs, status: r.status }))
        .catch(() => ({ sentMs, status: 0 })),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const answers = (await Promise.all(probes)).filter((p) => p.status !== 0);
  const firstRefusal = answers.find((p) => p.status === 503);
  const lateReady = answers.filter((p) => p.status === 200 && p.sentMs > (firstRefusal?.sentMs ?? 0));
  const readinessFlipMs =
    firstRefusal === undefined || lateReady.length > 0 ? Number.NaN : firstRefusal.sentMs;
  const exitCode = await instance.exited;
  const exitMs = performance.now() - began;
  const drained = instance.lines
    .map((line) => {
      try {
        return JSON.parse(line) as { msg?: string; drainMs?: { sockets?: number; workers?: number } };
      } catch {
        return {};
      }
    })
    .find((entry) => entry.msg?.startsWith('stopping: finishing') === true);
  const next = await startAgain(cluster, instance, retries);
  return {
    figures: {
      name: instance.name,
      readinessFlipMs,
      socketsDrainedMs: drained?.drainMs?.sockets ?? Number.NaN,
      workersDrainedMs: drained?.drainMs?.workers ?? Number.NaN,
      exitMs,
      exitCode,
    },
    next,
  };
}

/**
 * The same instance again on its port. A start whose first connection to PostgreSQL times out (5 s, on a
 * machine this busy) exits 1 as it should; it is started again, and counted.
 */
async function startAgain(cluster: Cluster, instance: Instance, retries: StartRetries): Promise<Instance> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await cluster.start(instance.name, instance.port);
    } catch (error) {
      if (attempt === 3) throw error;
      retries.count += 1;
      process.stdout.write(
        `${instance.name} did not start (${(error as Error).message.split('\n')[0]}): again\n`,
      );
    }
  }
}
