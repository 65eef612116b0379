import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { EmbeddedMaintenance, type MaintenancePass } from '../../src/core/db/embedded-maintenance.ts';
import { openPglite } from '../../src/core/db/pglite.ts';
import { MAINTENANCE_AFTER_START_MS } from '../../src/core/modules/periodic-worker.ts';
import { eventually } from '../support/eventually.ts';

/** How the planner answers "a key's newest 20 rows", as the plan's top node under the Limit. */
async function planOf(db: Database): Promise<string> {
  const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: { Plans: [{ 'Node Type': string }] } }] }>(
    `explain (format json) select id from things where k = 'a' order by seq desc limit 20`,
  );
  return rows[0]?.['QUERY PLAN'][0].Plan.Plans[0]['Node Type'] ?? 'none';
}

// The embedded database itself (PGlite has no autovacuum), whatever DATABASE_URL says.
describe('embedded database maintenance', () => {
  let db: Database;
  let maintenance: EmbeddedMaintenance;
  const clock = new ManualClock();

  before(async () => {
    db = await openPglite(undefined);
    await db.exec(`create table things (k text not null, seq bigint generated always as identity, id text not null);
                   create index things_k_seq on things (k, seq desc);`);
    maintenance = new EmbeddedMaintenance({ db, clock, intervalMs: 60_000 });
  });
  after(() => db.close());

  // The statistics reach pg_stat_user_tables a moment after the writes: a pass is repeated until it sees them.
  const passUntil = (what: string, done: (pass: MaintenancePass) => boolean) =>
    eventually(what, async () => done(await maintenance.runOnce()), { stepMs: 200 });

  test('a table that changed is analyzed, so the planner uses its index; an idle table is left alone', async () => {
    await db.exec(`insert into things (k, id) select case when g % 2 = 0 then 'a' else 'b' end, 'x' || g
                     from generate_series(1, 4000) g`);
    assert.notEqual(await planOf(db), 'Index Scan', 'never analyzed: the planner guesses and sorts');
    await passUntil('things analyzed', (pass) => pass.analyzed.includes('things'));
    assert.equal(await planOf(db), 'Index Scan');
    assert.deepEqual(await maintenance.runOnce(), { analyzed: [], vacuumed: [] }, 'nothing changed since');
  });

  test('a table with many dead rows is vacuumed', async () => {
    await db.exec(`delete from things where k = 'b'`);
    await passUntil('things vacuumed', (pass) => pass.vacuumed.includes('things'));
    const { rows } = await db.query<{ n_dead_tup: number }>(
      `select n_dead_tup from pg_stat_user_tables where relname = 'things'`,
    );
    assert.equal(Number(rows[0]?.n_dead_tup), 0);
  });

  test('started, it runs a pass once the start has had its moment, then one every interval of its clock', async () => {
    await db.exec(`insert into things (k, id) select 'c', 'y' || g from generate_series(1, 3000) g`);
    // Let the statistics arrive before the started worker looks.
    await eventually('the inserts counted', async () => {
      const { rows } = await db.query<{ n: number }>(
        `select n_mod_since_analyze as n from pg_stat_user_tables where relname = 'things'`,
      );
      return Number(rows[0]?.n) >= 3000;
    });
    const analyzedAt = async () =>
      (
        await db.query<{ at: Date | null }>(
          `select last_analyze as at from pg_stat_user_tables where relname = 'things'`,
        )
      ).rows[0]?.at;
    const changedSince = (previous: Date | null | undefined) => async () => {
      const at = await analyzedAt();
      return at !== null && at !== undefined && at.getTime() !== previous?.getTime();
    };
    const first = await analyzedAt();
    maintenance.start();
    try {
      clock.advance(MAINTENANCE_AFTER_START_MS - 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await analyzedAt())?.getTime(), first?.getTime(), "no pass in the start's first moment");
      clock.advance(1);
      await eventually('analyzed by the started worker', changedSince(first));
      const second = await analyzedAt();
      await db.exec(`insert into things (k, id) select 'd', 'z' || g from generate_series(1, 3000) g`);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal((await analyzedAt())?.getTime(), second?.getTime(), 'no pass before the interval');
      clock.advance(60_000);
      await eventually('analyzed again an interval later', changedSince(second));
    } finally {
      await maintenance.stop();
    }
  });
});
