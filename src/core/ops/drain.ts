/**
 * An instance's drain, begun on SIGTERM before the app closes (docs/operations.md, graceful shutdown):
 * readiness answers 503 from the moment it begins, so the load balancer sends new traffic elsewhere, while
 * each part of the app with something to hand over (the gateway's sockets, the workers' leases) does so
 * over the drain window. The app closes after it, as it always does.
 */
export class Drain {
  private begun: Promise<void> | undefined;
  private readonly steps: (() => Promise<void>)[] = [];

  /** True from `begin()` on: readiness fails, new WebSocket connections are refused (1012). */
  get draining(): boolean {
    return this.begun !== undefined;
  }

  /** A part of the app that hands something over when the drain begins. */
  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  /** Starts every step at once (once); resolves when they all ended, rejects with the first failure. */
  begin(): Promise<void> {
    this.begun ??= Promise.all(this.steps.map((step) => step())).then(() => undefined);
    return this.begun;
  }
}
