/** Up to this fraction of a delay is added at random, so retries of many deliveries spread out. */
export const JITTER_RATIO = 0.1;

/**
 * After the n-th failed attempt of a cycle (n from 1), the delay before the next one, or undefined when
 * that was the final scheduled attempt. `schedule` lists the delays between attempts: attempt 1 is
 * immediate, attempt k+1 follows failure k by schedule[k-1], so a cycle has schedule.length + 1 attempts.
 */
export function retryDelay(
  schedule: readonly number[],
  failures: number,
  random: () => number,
): number | undefined {
  const base = schedule[failures - 1];
  if (base === undefined) return undefined;
  const r = Math.min(Math.max(random(), 0), 1);
  return base + Math.floor(base * JITTER_RATIO * r);
}
