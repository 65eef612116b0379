import { type Env, integer } from './parse.ts';

/** What SIGTERM does, and how long it may take (docs/operations.md, graceful shutdown). */
export interface ShutdownConfig {
  /**
   * From SIGTERM to exit at most (ms): the drain, in-flight requests, workers releasing their leases and
   * the database closing all fit in it; past it, open connections are cut and the process exits 1.
   */
  shutdownGraceMs: number;
  /**
   * The window over which open WebSockets are closed (1012), in jittered batches, so their clients do not
   * all reconnect to the other instances in the same instant. Below `shutdownGraceMs`.
   */
  drainWindowMs: number;
}

/** The window defaults to 10 s, or half the grace when that is shorter: the rest of a stop needs time. */
export function shutdownConfig(env: Env): ShutdownConfig {
  const shutdownGraceMs = integer(env, 'SVC_SHUTDOWN_GRACE_MS', 30_000, 0, 600_000);
  const fallback = Math.min(10_000, Math.floor(shutdownGraceMs / 2));
  return {
    shutdownGraceMs,
    drainWindowMs: integer(env, 'SVC_DRAIN_WINDOW_MS', fallback, 0, Math.max(0, shutdownGraceMs - 1)),
  };
}
