/**
 * Spreads the fan-out of room messages over turns of the event loop. Every delivery of a frame to a
 * member counts; once a turn has made `perTurn` of them, further room messages wait for the next turn
 * (setImmediate), so HTTP requests and other sockets are served in between. A burst (a thousand joins
 * announced to a thousand members, all parsed from one Redis read or queued as microtasks) otherwise runs
 * in one go and stalls the instance for every tenant.
 */
export class FanOutPacer {
  private spent = 0;
  private resetting = false;

  constructor(private readonly perTurn: number) {}

  /** Counts `deliveries` against this turn if it has room left; false means wait for the next turn. */
  take(deliveries: number): boolean {
    if (this.spent >= this.perTurn) return false;
    this.spent += deliveries;
    if (!this.resetting) {
      this.resetting = true;
      setImmediate(() => {
        this.spent = 0;
        this.resetting = false;
      });
    }
    return true;
  }

  /** Resolves in this turn if it has room for `deliveries`, else in the first later turn that has. */
  async turn(deliveries: number): Promise<void> {
    while (!this.take(deliveries)) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Runs `fn` in a later turn, after pending I/O. */
  later(fn: () => void): void {
    setImmediate(fn);
  }
}
