import type { Database } from './database.ts';

/**
 * A database that is still opening, usable at once: each call waits for `opening`, then goes to the
 * database it gave. The app builds (route registration is ~200 ms of CPU) while the embedded database
 * starts on its own thread, instead of after it. Once open, calls go straight through.
 *
 * A failed open fails every call with the open's error; `close` after a failed open does nothing.
 */
export function openingDatabase(kind: Database['kind'], opening: Promise<Database>): Database {
  let open: Database | undefined;
  const ready = opening.then((db) => {
    open = db;
    return db;
  });
  // Awaited by each call; not an unhandled rejection while no call has been made yet.
  ready.catch(() => {});
  // Not `async`: once open, a call is the database's own, with no promise of its own around it.
  const on = <T>(call: (db: Database) => Promise<T>): Promise<T> =>
    open === undefined ? ready.then(call) : call(open);
  return {
    kind,
    query: (sql, params) => on((db) => db.query(sql, params)),
    exec: (sql) => on((db) => db.exec(sql)),
    transaction: (fn, options) => on((db) => db.transaction(fn, options)),
    tenantQuery: (tenantId, sql, params) => on((db) => db.tenantQuery(tenantId, sql, params)),
    systemQuery: (sql, params) => on((db) => db.systemQuery(sql, params)),
    dedicated: (options) => on((db) => db.dedicated(options)),
    withAdvisoryLock: (key, fn) => on((db) => db.withAdvisoryLock(key, fn)),
    tryWithAdvisoryLock: (key, fn) => on((db) => db.tryWithAdvisoryLock(key, fn)),
    poolStats: () => open?.poolStats?.(),
    releaseMemory: () => on(async (db) => db.releaseMemory?.()),
    close: async () => {
      const db = await ready.catch(() => undefined);
      await db?.close();
    },
  };
}
