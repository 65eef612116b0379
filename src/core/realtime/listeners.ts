export type ErrorReporter = (error: unknown, context: string) => void;

/** Default reporter: backplane failures must never throw into Redis event handlers or timers. */
export const ignoreErrors: ErrorReporter = () => {};

/**
 * Calls a listener and routes a throw or a rejected promise to the reporter, so one faulty listener
 * cannot stop the others or crash the process.
 */
export function callSafely<A extends unknown[]>(
  listener: (...args: A) => unknown,
  args: A,
  report: ErrorReporter,
  context: string,
): void {
  try {
    const result = listener(...args);
    if (result instanceof Promise) result.catch((error: unknown) => report(error, context));
  } catch (error) {
    report(error, context);
  }
}

/** A set of listeners with `add` returning its own removal, the shape every backplane event uses. */
export class ListenerSet<A extends unknown[]> {
  private readonly listeners = new Set<(...args: A) => unknown>();

  constructor(
    private readonly report: ErrorReporter,
    private readonly context: string,
  ) {}

  add(listener: (...args: A) => unknown): () => void {
    // Wrapped so the same function added twice is two registrations, each removable on its own.
    const entry = (...args: A) => listener(...args);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(...args: A): void {
    for (const listener of [...this.listeners]) callSafely(listener, args, this.report, this.context);
  }

  clear(): void {
    this.listeners.clear();
  }
}
