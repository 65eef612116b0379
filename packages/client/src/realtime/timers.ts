/** Time and timers behind one seam, so reconnect schedules are tested without waiting for real. */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export function defaultTimers(overrides: Partial<Timers>): Timers {
  return {
    now: overrides.now ?? (() => Date.now()),
    setTimeout: overrides.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms)),
    clearTimeout:
      overrides.clearTimeout ??
      ((handle) => globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0])),
  };
}
