/** Which cap a refused connection hit. */
export type CapReached = 'instance' | 'actor';

/**
 * The connections one instance holds, in all and per actor, against their caps. A slot is taken before the
 * upgrade, so a refusal is still a plain HTTP 429, and given back by the function `take` returns.
 */
export class ConnectionCaps {
  private total = 0;
  private readonly perActor = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly maxPerActor: number,
  ) {}

  /** A slot for one more connection of the actor (its release function), or the cap that is reached. */
  take(actorId: string): (() => void) | CapReached {
    if (this.total >= this.max) return 'instance';
    const held = this.perActor.get(actorId) ?? 0;
    if (held >= this.maxPerActor) return 'actor';
    this.total += 1;
    this.perActor.set(actorId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perActor.get(actorId) ?? 1) - 1;
      if (left > 0) this.perActor.set(actorId, left);
      else this.perActor.delete(actorId);
    };
  }

  get open(): number {
    return this.total;
  }
}
