import type { Clock, Timer } from '../clock.ts';
import type { BackgroundWorker } from './hooks.ts';

export interface PeriodicWorkerOptions {
  clock: Clock;
  /** Between the end of one pass and the start of the next. */
  intervalMs: number;
  /** From `start` to the first pass (default 0: at once). */
  firstPassAfterMs?: number;
  /** One pass of the work. */
  pass: () => Promise<unknown>;
  /** A pass that failed; the next one runs as planned. */
  failed: (error: unknown) => void;
}

/**
 * When maintenance that can wait makes its first pass after a start: the start's own work and its first
 * requests go first. On the embedded database (one connection) a pass at once put the first `/readyz`
 * behind analyzing the tables the migrations and the demo tenant changed (bench:startup, banner to ready:
 * 0.13-0.18 s on a first start, 0.03-0.05 s with the pass a second later). Before RELEASE_AFTER_START_MS
 * (idle-memory.ts), so the memory a pass takes is collected with the start's.
 */
export const MAINTENANCE_AFTER_START_MS = 1_000;

/**
 * A background worker that runs a pass at start (or `firstPassAfterMs` later) and then every
 * `intervalMs` on the injected clock, one pass at a time: maintenance that needs no wake-ups (see
 * PollingWorker for work that does). `stop` cancels the next pass and waits for one under way.
 */
export class PeriodicWorker implements BackgroundWorker {
  private timer: Timer | undefined;
  private running = false;
  private passing: Promise<unknown> | undefined;

  constructor(private readonly options: PeriodicWorkerOptions) {}

  start(): void {
    this.running = true;
    this.schedule(this.options.firstPassAfterMs ?? 0);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.passing?.catch(() => {});
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.passing = this.options
        .pass()
        .catch((error: unknown) => this.options.failed(error))
        .finally(() => {
          this.passing = undefined;
          this.schedule(this.options.intervalMs);
        });
    }, ms);
  }
}
