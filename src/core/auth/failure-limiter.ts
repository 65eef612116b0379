/**
 * Slows credential guessing: after `limit` failed authentications from one address within `windowMs`,
 * that address is refused (429) until the window ends. In memory per instance; with several instances
 * the effective limit is per instance, which still bounds guessing to limit x instances per window.
 */
export class FailureLimiter {
  private readonly failures = new Map<string, { count: number; windowStart: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    const entry = this.failures.get(address);
    if (entry === undefined) return 0;
    const elapsed = this.now() - entry.windowStart;
    if (elapsed >= this.windowMs) {
      this.failures.delete(address);
      return 0;
    }
    return entry.count >= this.limit ? Math.ceil((this.windowMs - elapsed) / 1000) : 0;
  }

  recordFailure(address: string): void {
    const now = this.now();
    const entry = this.failures.get(address);
    if (entry === undefined || now - entry.windowStart >= this.windowMs) {
      if (this.failures.size > 100_000) this.failures.clear();
      this.failures.set(address, { count: 1, windowStart: now });
    } else {
      entry.count += 1;
    }
  }
}
