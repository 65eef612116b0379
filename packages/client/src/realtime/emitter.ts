/** A small typed event emitter: `on` returns the function that removes the listener. */
export class Emitter<Events extends { [name: string]: unknown }> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  on<K extends keyof Events>(name: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (payload: never) => void);
    return () => this.off(name, listener);
  }

  off<K extends keyof Events>(name: K, listener: (payload: Events[K]) => void): void {
    this.listeners.get(name)?.delete(listener as (payload: never) => void);
  }

  /** Calls every listener; one that throws does not stop the others or the client (reported async). */
  protected emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(name) ?? [])]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
