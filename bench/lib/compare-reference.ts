// compare() with a second baseline measured in the same rounds: node:http (the floor of any server on this
// machine), a reference such as bare Fastify (the floor of the framework), and the subject. The table and
// the subject/baseline ratio line read as compare()'s; the two other ratios and the share of the gap that
// the reference already has follow.
import type { Comparison } from './compare.ts';
import { machineLine, median, medianResult, resultRow, row } from './compare.ts';
import { type LoadResult, loadSettings, measureOnce, type RequestSpec, warmUp } from './load.ts';
import type { Target } from './targets.ts';

export interface ReferencedComparison extends Comparison {
  reference: { name: string } & LoadResult;
  /** Median over rounds of subject / reference req/s. */
  subjectToReference: number;
  /** Median over rounds of reference / baseline req/s. */
  referenceToBaseline: number;
}

export interface ReferencedOptions {
  title: string;
  request: RequestSpec;
  baseline: Target;
  reference: Target;
  subject: Target;
  settings?: Parameters<typeof loadSettings>[0];
}

async function probe(target: Target, request: RequestSpec): Promise<string> {
  const res = await fetch(`${target.baseUrl}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return `${res.status} ${await res.text()}`;
}

/** Measures the three targets alike, alternating them every round; fails when they answer differently. */
export async function compareWithReference(options: ReferencedOptions): Promise<ReferencedComparison> {
  const settings = loadSettings(options.settings);
  const targets = [options.baseline, options.reference, options.subject] as const;
  const answers = await Promise.all(targets.map((target) => probe(target, options.request)));
  if (new Set(answers).size !== 1) {
    throw new Error(
      `targets answer differently: ${targets.map((t, i) => `${t.name} ${answers[i]}`).join(' vs ')}`,
    );
  }

  process.stdout.write(
    `\n${options.title}: ${options.request.method ?? 'GET'} ${options.request.path}\n` +
      `  autocannon in a ${settings.generator === 'process' ? 'child process' : 'worker thread'}, ${settings.connections} connections, pipelining ${settings.pipelining}, loopback\n` +
      `  ${settings.warmupSeconds} s warm-up per target, then ${settings.rounds} alternating round(s) of ${settings.durationSeconds} s per target\n` +
      `  ${machineLine()}\n\n`,
  );
  for (const target of targets) await warmUp(target.baseUrl, options.request, settings);

  process.stdout.write(`${row(['round / target', 'req/s', 'p50 ms', 'p99 ms', 'errors'])}\n`);
  const runs: [LoadResult[], LoadResult[], LoadResult[]] = [[], [], []];
  const ratios = { subject: [] as number[], toReference: [] as number[], reference: [] as number[] };
  // With the load generator in a process of its own, this process's CPU time is the servers': per request, a
  // figure that machine load moves far less than req/s.
  const cpuPerRequest = settings.generator === 'process';
  if (cpuPerRequest)
    process.stdout.write(
      "  (cpu: this process's user+system CPU per request, all three servers live in it)\n",
    );
  const cpu: [number[], number[], number[]] = [[], [], []];
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
    const [b, r, s] = pair.map((result) => result.requestsPerSecond);
    if (b === undefined || r === undefined || s === undefined) continue;
    ratios.subject.push(s / b);
    ratios.toReference.push(s / r);
    ratios.reference.push(r / b);
  }

  const baseline = medianResult(options.baseline.name, runs[0]);
  const reference = medianResult(options.reference.name, runs[1]);
  const subject = medianResult(options.subject.name, runs[2]);
  const throughputRatio = median(ratios.subject);
  const subjectToReference = median(ratios.toReference);
  const referenceToBaseline = median(ratios.reference);
  for (const result of [baseline, reference, subject]) {
    process.stdout.write(`${result === baseline ? '\n' : ''}${resultRow(`median ${result.name}`, result)}\n`);
  }
  const b = baseline.name;
  const r = reference.name;
  const s = subject.name;
  process.stdout.write(
    `\nratio ${s}/${b}: ${throughputRatio.toFixed(2)} of the baseline's throughput` +
      ` (median of ${ratios.subject.length} paired round(s); p99 ${subject.latencyP99Ms} ms vs ${baseline.latencyP99Ms} ms)\n` +
      `ratio ${s}/${r}: ${subjectToReference.toFixed(2)}   ratio ${r}/${b}: ${referenceToBaseline.toFixed(2)}` +
      `   (of the ${s}-${b} gap, ${r} alone is ${gapShare(throughputRatio, referenceToBaseline)})\n`,
  );
  if (cpuPerRequest) {
    process.stdout.write(
      `cpu per request (medians): ${targets.map((t, i) => `${t.name} ${median(cpu[i] ?? []).toFixed(1)} us`).join(', ')}\n`,
    );
  }
  const failed = [baseline, reference, subject].filter((x) => x.errors > 0 || x.non2xx > 0);
  if (failed.length > 0) {
    throw new Error(
      `requests failed during the run: ${failed.map((x) => `${x.name} ${x.errors} errors, ${x.non2xx} non-2xx`).join('; ')}`,
    );
  }
  return {
    title: options.title,
    settings,
    baseline,
    subject,
    throughputRatio,
    reference,
    subjectToReference,
    referenceToBaseline,
  };
}

/** How much of the subject's shortfall from the baseline the reference already shows, as a percentage. */
function gapShare(subjectRatio: number, referenceRatio: number): string {
  const gap = 1 - subjectRatio;
  if (gap <= 0) return 'n/a (no gap)';
  if (referenceRatio >= 1) return `none (it outran the baseline this run: noise)`;
  const share = (1 - referenceRatio) / gap;
  if (share > 1) return 'all of it (the subject outran the reference this run: noise)';
  return `${Math.round(share * 100)} %`;
}
