// A CPU profile of this process over part of a bench (the service's hot run), through the inspector, so
// set-up and the baseline stay out of it; and the summary the benches print: the top self-time frames.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Starts profiling; the returned function stops, writes `<dir>/<name>.cpuprofile` and answers its path. */
export async function startProfile(dir: string, name: string): Promise<() => Promise<string>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    session.disconnect();
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}

/** The `top` frames by self time, as lines: share of the samples, ms, function and where it is. */
export function topFrames(file: string, top = 15): string[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (const [i, id] of profile.samples.entries()) {
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    // tsx strips the line numbers of what it compiles (they read 0): the file names the frame.
    const line = frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : '';
    const where =
      frame.url === '' ? '' : ` ${frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}${line}`;
    const key = `${frame.functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([key, ms]) =>
        `${((100 * ms) / (total || 1)).toFixed(1).padStart(5)}% ${ms.toFixed(0).padStart(6)} ms  ${key}`,
    );
}

/** Writes a heap snapshot of this process to `file` (BENCH_FANOUT_HEAP: what idle sockets hold). */
export async function writeHeapSnapshot(file: string): Promise<void> {
  const session = new Session();
  session.connect();
  const chunks: string[] = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(m.params.chunk));
  await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  session.disconnect();
  fs.writeFileSync(file, chunks.join(''));
}
