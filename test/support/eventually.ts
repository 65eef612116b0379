/**
 * The one way tests wait for something that happens asynchronously: poll `probe` until it gives a value
 * (anything but undefined or false), letting `pause` pass between tries (real time by default; a backend
 * with a fake clock passes its own tick). The bound only decides when to give up: tests never assert how
 * long something took.
 */
export interface EventuallyOptions {
  /** Give up after this much waiting (default 15 s). */
  timeoutMs?: number;
  /** Pause between tries (default 20 ms). */
  stepMs?: number;
  /** How to let time pass between tries; default a real timer. */
  pause?: (ms: number) => Promise<unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: EventuallyOptions = {},
): Promise<T> {
  const stepMs = options.stepMs ?? 20;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const pause = options.pause ?? sleep;
  let waited = 0;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (waited >= timeoutMs) {
      throw new Error(`gave up waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await pause(stepMs);
    waited += stepMs;
  }
}
