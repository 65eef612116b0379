// An open-loop load generator for the benches, in a child process of its own so its timers are not
// delayed by the service under test: request i of a run is due at start + i / rate (with `burst`, at the
// start of second floor(i / rate)) and is sent then,
// whether or not earlier requests have been answered (no coordinated omission). Latency is measured from
// the due time to the end of the response. Driven over IPC: send a PacedRun, receive a PacedResult.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PacedRun {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  /** Requests per second, spread evenly (or, with `burst`, each second's sent at its start). */
  rate: number;
  /** Each second's `rate` requests all due at the start of the second, instead of spread over it. */
  burst?: boolean;
  seconds: number;
  /** Keep-alive connections at most (requests queue for a free one beyond that). */
  connections: number;
}

export interface PacedResult {
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** Seconds from the first due time to the last answer. */
  seconds: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

async function runPaced(run: PacedRun): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: run.connections });
  const total = Math.round(run.rate * run.seconds);
  const latencies = new Float64Array(total);
  let answered = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let lastAnswerAt = 0;
  const body = Buffer.from(run.body);
  const target = new URL(run.url);
  const send = (dueAt: number): Promise<void> =>
    new Promise((resolve) => {
      const finish = (status: number | undefined) => {
        const now = performance.now();
        latencies[answered] = now - dueAt;
        answered += 1;
        lastAnswerAt = now;
        if (status === undefined) errors += 1;
        else if (status >= 200 && status < 300) ok += 1;
        else non2xx += 1;
        resolve();
      };
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: run.method,
          headers: { ...run.headers, 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => finish(res.statusCode));
          res.on('error', () => finish(undefined));
        },
      );
      req.on('error', () => finish(undefined));
      req.end(body);
    });

  const pending: Promise<void>[] = [];
  const startedAt = performance.now();
  // Request i is due at dueAt(i); `dueBy(ms)` requests are due `ms` after the start.
  const perBurst = Math.max(1, Math.round(run.rate));
  const dueAt = (i: number) =>
    startedAt + (run.burst === true ? Math.floor(i / perBurst) * 1000 : (i * 1000) / run.rate);
  const dueBy = (ms: number) =>
    run.burst === true ? (Math.floor(ms / 1000) + 1) * perBurst : Math.floor((ms * run.rate) / 1000) + 1;
  for (let sent = 0; sent < total; ) {
    const due = Math.min(total, dueBy(performance.now() - startedAt));
    for (; sent < due; sent++) pending.push(send(dueAt(sent)));
    await sleep(1);
  }
  await Promise.all(pending);
  agent.destroy();
  const sorted = latencies.subarray(0, answered).sort();
  return {
    sent: total,
    ok,
    non2xx,
    errors,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    seconds: (lastAnswerAt - startedAt) / 1000,
  };
}

if (process.send !== undefined) {
  process.on('message', (run: PacedRun) => {
    runPaced(run).then(
      (result) => process.send?.({ kind: 'result', result }),
      (error: unknown) => process.send?.({ kind: 'failed', message: String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
