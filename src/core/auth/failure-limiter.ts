import type { Clock } from '../clock.ts';
import type { JsonObject, PubSub, Unsubscribe } from '../realtime/index.ts';

/** Addresses counted at once per instance: past it the least recently failing one is forgotten. */
export const MAX_COUNTING = 100_000;
/** Blocked addresses kept per instance: a flood of new addresses cannot push these out. */
export const MAX_BLOCKED = 100_000;

/** Failure counts shared by every instance (Redis): one address's failures anywhere add up. */
export interface SharedFailureCounts {
  /** Adds a failure of `address`; the failures in its current window and the ms that window has left. */
  add(address: string, windowMs: number): Promise<{ count: number; leftMs: number }>;
  close(): Promise<void>;
}

interface Entry {
  count: number;
  windowStart: number;
}

/** The channel on which an instance tells the others that an address is blocked (authentication). */
const BLOCKED_CHANNEL = 'svc:auth:blocked';

/**
 * Slows credential guessing: after `limit` failed authentications from one address within `windowMs`,
 * the address is refused (429) until the window ends. The check is in memory and synchronous (it runs on
 * every authenticated request); its memory is bounded in two tiers, so that a flood of new addresses
 * (each failing once) only pushes out other addresses still being counted, never a blocked one. With
 * shared counts (REDIS_URL) every instance's failures add up, and an instance that sees an address reach
 * the limit tells the others through the backplane, so it is blocked everywhere.
 */
export class FailureLimiter {
  /** Map order is recency: the first entry is the least recently failing. */
  private readonly counting = new Map<string, Entry>();
  private readonly blocked = new Map<string, number>();
  private unsubscribe: Unsubscribe | undefined;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly shared?: { counts: SharedFailureCounts; pubsub: PubSub; report(error: unknown): void },
    /** Where blocks are announced: each limiter its own (the product-key request limit reuses this class). */
    private readonly channel: string = BLOCKED_CHANNEL,
  ) {}

  /** Starts hearing of addresses other instances blocked. */
  async start(): Promise<void> {
    if (this.shared === undefined) return;
    this.unsubscribe = await this.shared.pubsub.subscribe(this.channel, (message) => {
      const { address, until } = message;
      if (typeof address === 'string' && typeof until === 'number') this.block(address, until);
    });
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.shared?.counts.close();
  }

  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string): number {
    const until = this.blocked.get(address);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left > 0) return Math.ceil(left / 1000);
    this.blocked.delete(address);
    return 0;
  }

  /** Counts one failure (or, for a request limit, one request) of `address`; `limit` overrides the default. */
  recordFailure(address: string, limit: number = this.limit): void {
    const now = this.clock.now();
    let entry = this.counting.get(address);
    this.counting.delete(address);
    if (entry === undefined || now - entry.windowStart >= this.windowMs)
      entry = { count: 0, windowStart: now };
    entry.count += 1;
    if (entry.count >= limit) {
      this.block(address, entry.windowStart + this.windowMs);
    } else {
      this.counting.set(address, entry);
      if (this.counting.size > MAX_COUNTING) this.forgetOldest(this.counting);
    }
    if (this.shared !== undefined) this.share(address, this.shared, limit);
  }

  /** How many addresses each tier holds (for tests and metrics). */
  size(): { counting: number; blocked: number } {
    return { counting: this.counting.size, blocked: this.blocked.size };
  }

  private share(address: string, shared: NonNullable<FailureLimiter['shared']>, limit: number): void {
    shared.counts
      .add(address, this.windowMs)
      .then(async ({ count, leftMs }) => {
        if (count < limit || this.blocked.has(address)) return;
        const until = this.clock.now() + leftMs;
        this.block(address, until);
        const message: JsonObject = { address, until };
        await shared.pubsub.publish(this.channel, message);
      })
      .catch((error: unknown) => shared.report(error));
  }

  private block(address: string, until: number): void {
    this.counting.delete(address);
    if (until <= this.clock.now()) return;
    this.blocked.delete(address);
    this.blocked.set(address, Math.max(until, this.blocked.get(address) ?? 0));
    if (this.blocked.size > MAX_BLOCKED) this.forgetOldest(this.blocked);
  }

  private forgetOldest(map: Map<string, unknown>): void {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}
