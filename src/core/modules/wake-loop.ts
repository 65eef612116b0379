import type { Clock, Timer } from '../clock.ts';
import { untraced } from '../ops/tracing/spans.ts';

export interface WakeLoopOptions {
  clock: Clock;
  /**
   * One look at the work. It ends by sleeping (`sleep(ms)`), by asking for another look at once
   * (`lookAgain()`), or by doing neither and waiting for a wake.
   */
  tick(): Promise<void>;
  /** A tick threw: log it; the loop sleeps `errorBackoffMs`, then looks again. */
  failed(error: unknown): void;
  errorBackoffMs: number;
}

/**
 * The wake loop of a background worker: `wake()` asks for a look at the work, and wakes that arrive while
 * one runs coalesce into one more look. One tick runs at a time; between ticks the worker sleeps on the
 * injected clock until its next due time or a wake, whichever comes first.
 */
export class WakeLoop {
  private isRunning = false;
  private current: Promise<void> | undefined;
  private again = false;
  private timer: Timer | undefined;

  constructor(private readonly options: WakeLoopOptions) {}

  get running(): boolean {
    return this.isRunning;
  }

  /** True when a wake arrived during the current tick: another look follows at once. */
  get woken(): boolean {
    return this.again;
  }

  /** The look under way, if any. */
  get ticking(): Promise<void> | undefined {
    return this.current;
  }

  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.wake();
  }

  /** No more ticks; resolves once the one under way has ended. */
  async stop(): Promise<void> {
    this.isRunning = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.current;
  }

  /** Look now. Cheap; calls coalesce. */
  wake(): void {
    if (!this.isRunning) return;
    this.again = true;
    // Outside the waker's trace: the loop outlives the request that woke it.
    if (this.current === undefined) this.current = untraced(() => this.loop());
  }

  /** From inside a tick: look again as soon as it ends. */
  lookAgain(): void {
    this.again = true;
  }

  /** Wake after `ms` (replacing an earlier sleep), unless stopped. */
  sleep(ms: number): void {
    this.timer?.cancel();
    this.timer = this.isRunning ? this.options.clock.setTimeout(() => this.wake(), ms) : undefined;
  }

  /** Resolves once no look is under way. */
  async idle(): Promise<void> {
    while (this.current !== undefined) await this.current;
  }

  /** Runs ticks while wakes keep arriving; `current` is cleared with no await in between, so none is lost. */
  private async loop(): Promise<void> {
    // Start after the caller's synchronous work: a burst of wakes coalesces, a test clock finishes moving.
    await Promise.resolve();
    try {
      while (this.again && this.isRunning) {
        this.again = false;
        try {
          await this.options.tick();
        } catch (error) {
          this.options.failed(error);
          this.sleep(this.options.errorBackoffMs);
          return;
        }
      }
    } finally {
      this.current = undefined;
    }
  }
}
