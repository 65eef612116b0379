/**
 * Reconnect timing. Full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): attempt n waits
 * a uniformly random time in [0, min(cap, first * 2^n)), so the first retry comes within `firstMs` and no
 * wait is longer than `capMs`. A close that tells every client of an instance to go at once (a restart,
 * 1012; going away, 1001; try again later, 1013; slow down, 4429) is a crowd: those waits are spread over
 * at least `crowdSpreadMs`, so the instances that take the crowd see at most a tenth of it in a second.
 */
export interface BackoffOptions {
  /** The ceiling of the first retry's wait (default 1,000 ms: the first retry comes within 1 s). */
  firstMs?: number;
  /** The ceiling of every wait (default 20,000 ms). */
  capMs?: number;
  /** After a close that sends a crowd (1001, 1012, 1013, 4429), waits are spread over at least this (default 10,000 ms). */
  crowdSpreadMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  firstMs: 1_000,
  capMs: 20_000,
  crowdSpreadMs: 10_000,
};

/** The wait before reconnect attempt `attempt` (0 for the first retry), in ms. */
export function reconnectDelay(
  attempt: number,
  crowd: boolean,
  random: () => number,
  options: Required<BackoffOptions>,
): number {
  const exponential = Math.min(options.capMs, options.firstMs * 2 ** Math.min(attempt, 30));
  const ceiling = crowd ? Math.max(exponential, Math.min(options.crowdSpreadMs, options.capMs)) : exponential;
  return Math.floor(random() * ceiling);
}
