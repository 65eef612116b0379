import type { Database } from '../../src/core/db/database.ts';

type Method = 'systemQuery' | 'tenantQuery';

/** A database whose `method` calls are counted by key, and whose next answer for a key can be held back. */
export interface WatchedQueries {
  db: Database;
  /** How many calls each key made. */
  reads: Map<string, number>;
  /** Holds the answer of `key`'s next call (it runs at once) until the returned release is called. */
  hold(key: string): () => void;
}

/**
 * `db` as the code under test sees it, with the calls of `method` that `keyOf` names (by their
 * arguments; undefined: not watched) counted, and the next answer of a key held until the test releases it:
 * a read that has run but not yet answered, for tests of reads under way.
 */
export function watchQueries(
  db: Database,
  method: Method,
  keyOf: (args: readonly unknown[]) => string | undefined,
): WatchedQueries {
  const reads = new Map<string, number>();
  const held = new Map<string, Promise<void>>();
  const watched = new Proxy(db, {
    get(target, property) {
      if (property === method) {
        return (...args: unknown[]) => {
          const answer = (target[method] as (...a: unknown[]) => Promise<unknown>)(...args);
          const key = keyOf(args);
          if (key === undefined) return answer;
          reads.set(key, (reads.get(key) ?? 0) + 1);
          const wait = held.get(key);
          if (wait === undefined) return answer;
          held.delete(key);
          return answer.then(async (result) => {
            await wait;
            return result;
          });
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    db: watched,
    reads,
    hold(key) {
      let release = () => {};
      held.set(
        key,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return release;
    },
  };
}
