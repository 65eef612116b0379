import type { Clock, Timer } from '../clock.ts';
import type { BackgroundWorker } from './hooks.ts';

export interface PeriodicWorkerOptions {
  clock: Clock;
  /** Between the end of one pass and the start of the next. */
  intervalMs: number;
  /** One pass of the work. */
  pass: () => Promise<unknown>;
  /** A pass that failed; the next one runs as planned. */
  failed: (error: unknown) => void;
}

/**
 * A background worker that runs a pass at start and then every `intervalMs` on the injected clock, one
 * pass at a time: maintenance that needs no wake-ups (see PollingWorker for work that does). `stop`
 * cancels the next pass and waits for one under way.
 */
export class PeriodicWorker implements BackgroundWorker {
  private timer: Timer | undefined;
  private running = false;
  private passing: Promise<unknown> | undefined;

  constructor(private readonly options: PeriodicWorkerOptions) {}

  start(): void {
    this.running = true;
    this.schedule(0);
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
