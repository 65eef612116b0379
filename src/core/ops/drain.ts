/**
 * An instance's drain, begun on SIGTERM before the app closes (docs/operations.md, graceful shutdown):
 * readiness answers 503 from the moment it begins, so the load balancer sends new traffic elsewhere, while
 * each part of the app with something to hand over (the gateway's sockets, the workers' leases) does so
 * over the drain window. The app closes after it, as it always does.
 */
export class Drain {
  private begun: Promise<Record<string, number>> | undefined;
  private readonly steps = new Map<string, () => Promise<void>>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** True from `begin()` on: readiness fails, new WebSocket connections are refused (1012). */
  get draining(): boolean {
    return this.begun !== undefined;
  }

  /** A part of the app that hands something over when the drain begins, by name (`sockets`, `workers`). */
  add(name: string, step: () => Promise<void>): void {
    this.steps.set(name, step);
  }

  /**
   * Starts every step at once (once); resolves when they all ended, with how long each took (ms), or
   * rejects with the first failure.
   */
  begin(): Promise<Record<string, number>> {
    if (this.begun !== undefined) return this.begun;
    const started = this.now();
    this.begun = Promise.all(
      [...this.steps].map(async ([name, step]) => {
        await step();
        return [name, Math.round(this.now() - started)] as const;
      }),
    ).then((took) => Object.fromEntries(took));
    return this.begun;
  }
}
