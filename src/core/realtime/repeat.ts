import type { Clock, Timer } from '../clock.ts';
import type { ErrorReporter } from './listeners.ts';

/**
 * Runs `task` every `everyMs` on the injected clock. The next run is armed only after the previous one
 * settled, so a slow Redis never stacks overlapping runs; a failed run is reported and the loop goes on.
 */
export function repeat(
  clock: Clock,
  everyMs: number,
  task: () => Promise<unknown>,
  report: ErrorReporter,
  context: string,
): () => void {
  let timer: Timer | undefined;
  let stopped = false;
  const run = () => {
    task()
      .catch((error: unknown) => report(error, context))
      .finally(() => {
        if (!stopped) timer = clock.setTimeout(run, everyMs);
      });
  };
  timer = clock.setTimeout(run, everyMs);
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
