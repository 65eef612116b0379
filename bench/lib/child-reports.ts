// What the fan-out and sync benches share with their client processes: the memory of this process after
// collecting its garbage, and the next report of a kind a child sends over IPC.
import type { ChildProcess } from 'node:child_process';

/** Heap + external and RSS of this process, after two full collections (run node with --expose-gc). */
export function memory(): { rss: number; heap: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed + usage.external };
}

/** A report a client process sends; `failed` ends the wait for any other kind with its message. */
export type ChildReport = { kind: string } | { kind: 'failed'; message: string };

/** The child's next report of `kind` (or its failure), within `deadlineMs`. */
export function nextReport<R extends ChildReport, K extends R['kind']>(
  child: ChildProcess,
  kind: K,
  deadlineMs: number,
): Promise<Extract<R, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${kind} report in time`)), deadlineMs);
    const onMessage = (report: R) => {
      if (report.kind !== kind && report.kind !== 'failed') return;
      clearTimeout(timer);
      child.off('message', onMessage);
      if (report.kind === 'failed' && 'message' in report)
        reject(new Error(`client process: ${report.message}`));
      else resolve(report as Extract<R, { kind: K }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`client process exited (${code})`)));
  });
}
