import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Clock } from '../clock.ts';
import type { ServiceContext } from '../context.ts';
import { type BackgroundWorker, type ModuleHost, systemContext } from './hooks.ts';
import { WakeLoop } from './wake-loop.ts';

/** What every polling worker takes; each names its own defaults. */
export interface PollingWorkerOptions {
  clock?: Clock;
  /** Longest sleep without a wake: what a lost wake costs at most. */
  maxPollMs?: number;
  /** Rows taken per look. */
  batch?: number;
  instanceId?: string;
  /** Serve only these tenants (test isolation on a shared database); default every tenant. */
  tenantIds?: ReadonlySet<string>;
}

/**
 * A module's background worker that looks at the database on a wake loop: woken after commit by the verbs
 * (or an outbox writer) that give it work, polling as the fallback. Every instance runs one; a subclass's
 * `tick` does one look and ends by sleeping, looking again, or waiting for a wake (see WakeLoop).
 */
export abstract class PollingWorker implements BackgroundWorker {
  readonly instanceId: string;
  protected readonly loop: WakeLoop;
  protected readonly clock: Clock;
  protected readonly maxPollMs: number;
  protected readonly batch: number;
  private readonly tenantSet: ReadonlySet<string> | undefined;

  constructor(
    protected readonly host: ModuleHost,
    options: PollingWorkerOptions,
    defaults: { maxPollMs: number; batch: number; errorBackoffMs: number; failure: string },
  ) {
    this.clock = options.clock ?? host.clock;
    this.maxPollMs = options.maxPollMs ?? defaults.maxPollMs;
    this.batch = options.batch ?? defaults.batch;
    this.tenantSet = options.tenantIds;
    this.instanceId =
      options.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.loop = new WakeLoop({
      clock: this.clock,
      tick: () => this.tick(),
      failed: (error) => this.host.log.error({ err: error }, defaults.failure),
      errorBackoffMs: defaults.errorBackoffMs,
    });
  }

  /** One look at the work (see WakeLoopOptions.tick). */
  protected abstract tick(): Promise<void>;

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Look now. Calls coalesce. */
  wake(): void {
    this.loop.wake();
  }

  /** A wake here is enough: every instance's worker finds the work on its next look anyway. */
  hasCapacity(): boolean {
    return this.loop.running;
  }

  /** Resolves once no look is under way (tests). */
  async idle(): Promise<void> {
    await this.loop.idle();
  }

  /** The tenants served, as a query parameter: null for every tenant. */
  protected tenants(): string[] | null {
    return this.tenantSet === undefined ? null : [...this.tenantSet];
  }

  /** The verb context of the worker's work in one tenant. */
  protected context(tenantId: string): ServiceContext {
    return systemContext(this.host, tenantId, this.clock);
  }
}
