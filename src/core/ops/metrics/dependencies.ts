import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../../db/database.ts';

/** The realtime backplane's readiness check (Redis, or the in-memory backplane). */
export interface Backplane {
  ready(): Promise<void>;
}

/**
 * `svc_db_pool_connections{state}` and `svc_db_pool_waiting` (PostgreSQL's pools; no series on PGlite,
 * whose one connection lives in the process), and `svc_redis_up` (the realtime backplane answers: Redis
 * when REDIS_URL is set, else the in-memory backplane, always 1).
 */
export function dependencyGauges(registry: Registry, db: Database, backplane: Backplane): void {
  new Gauge({
    name: 'svc_db_pool_connections',
    help: 'PostgreSQL pool connections of this instance: in_use or idle (not on the embedded database)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = db.poolStats?.();
      if (stats === undefined) return;
      this.set({ state: 'in_use' }, stats.total - stats.idle);
      this.set({ state: 'idle' }, stats.idle);
    },
  });
  new Gauge({
    name: 'svc_db_pool_waiting',
    help: 'Queries of this instance waiting for a PostgreSQL pool connection (0 on the embedded database)',
    registers: [registry],
    collect() {
      this.set(db.poolStats?.()?.waiting ?? 0);
    },
  });
  new Gauge({
    name: 'svc_redis_up',
    help: 'Whether the realtime backplane answers: 1 or 0 (Redis when REDIS_URL is set; always 1 in memory)',
    registers: [registry],
    async collect() {
      this.set(
        await backplane.ready().then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
}
