import type { Clock } from '../clock.ts';
import type { BackgroundWorker } from '../modules/hooks.ts';
import { MAINTENANCE_AFTER_START_MS, PeriodicWorker } from '../modules/periodic-worker.ts';
import type { Database } from './database.ts';

/** Its name among the app's workers (`services.workers`); no module can have it (module names have no `:`). */
export const MAINTENANCE_WORKER = 'core:maintenance';

/**
 * When a table is due, by PostgreSQL's own autovacuum defaults: analyze after 50 rows + 10 % of the table
 * changed since its last analyze, vacuum after 50 + 20 % of it are dead rows.
 */
const ANALYZE_BASE = 50;
const ANALYZE_FRACTION = 0.1;
const VACUUM_BASE = 50;
const VACUUM_FRACTION = 0.2;

export interface MaintenanceLog {
  error(obj: object, msg: string): void;
}

export interface EmbeddedMaintenanceOptions {
  db: Database;
  clock: Clock;
  /** Between passes (default 30 s). */
  intervalMs?: number;
  /** From start to the first pass (default MAINTENANCE_AFTER_START_MS). */
  firstPassAfterMs?: number;
  log?: MaintenanceLog;
}

/** What one pass did: the tables it analyzed and vacuumed. */
export interface MaintenancePass {
  analyzed: string[];
  vacuumed: string[];
}

interface TableStats {
  relname: string;
  n_live_tup: number | string;
  n_dead_tup: number | string;
  n_mod_since_analyze: number | string;
}

/** Names from pg_stat_user_tables go into SQL text: only plain identifiers ever do. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The embedded database's autovacuum. PostgreSQL's autovacuum is a server process that PGlite does not
 * run, so without this no table is ever analyzed: the planner keeps guessing sizes, and a tenant's newest
 * 20 rooms, which an index answers in 0.1 ms, are found by reading and sorting every room of the tenant
 * (47 ms for 2,000). Each pass asks the statistics which tables changed enough and analyzes (or vacuums)
 * only those, so an idle database costs one small query a pass.
 */
export class EmbeddedMaintenance implements BackgroundWorker {
  private readonly periodic: PeriodicWorker;

  constructor(private readonly options: EmbeddedMaintenanceOptions) {
    this.periodic = new PeriodicWorker({
      clock: options.clock,
      intervalMs: options.intervalMs ?? 30_000,
      firstPassAfterMs: options.firstPassAfterMs ?? MAINTENANCE_AFTER_START_MS,
      pass: () => this.runOnce(),
      failed: (err) => options.log?.error({ err }, 'embedded database maintenance failed'),
    });
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass now: the tables due, analyzed and vacuumed one at a time. */
  async runOnce(): Promise<MaintenancePass> {
    const { db } = this.options;
    const { rows } = await db.query<TableStats>(
      `select relname, n_live_tup, n_dead_tup, n_mod_since_analyze
         from pg_stat_user_tables where schemaname = 'public' order by relname`,
    );
    const pass: MaintenancePass = { analyzed: [], vacuumed: [] };
    for (const table of rows) {
      if (!PLAIN_NAME.test(table.relname)) continue;
      const live = Number(table.n_live_tup);
      if (Number(table.n_dead_tup) > VACUUM_BASE + VACUUM_FRACTION * live) {
        // VACUUM ANALYZE: the dead rows go and the statistics are new in one go.
        await db.exec(`vacuum (analyze) ${table.relname}`);
        pass.vacuumed.push(table.relname);
        pass.analyzed.push(table.relname);
      } else if (Number(table.n_mod_since_analyze) > ANALYZE_BASE + ANALYZE_FRACTION * live) {
        await db.exec(`analyze ${table.relname}`);
        pass.analyzed.push(table.relname);
      }
    }
    return pass;
  }
}
