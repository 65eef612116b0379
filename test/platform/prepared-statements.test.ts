import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/core/db/database.ts';
import { openDatabase } from '../../src/runtime.ts';
import { testConfig } from '../helper.ts';

// `prepared` on a statement (Queryable.query's options): on PostgreSQL the connection keeps it as a named
// prepared statement, planned once; PGlite ignores it. The bid queue's locked path relies on it.
describe('statements marked prepared', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(testConfig(), { inMemory: true });
  });
  after(() => db.close());

  const SQL = 'select $1::int + 1 as next /* prepared-statements test */';

  test('answer as any statement, twice on one connection, and on PostgreSQL stay prepared on it', async () => {
    const named = await db.transaction(async (tx) => {
      const first = await tx.query<{ next: number }>(SQL, [1], { prepared: true });
      const second = await tx.query<{ next: number }>(SQL, [41], { prepared: true });
      assert.deepEqual([first.rows[0]?.next, second.rows[0]?.next], [2, 42]);
      const { rows } = await tx.query<{ name: string }>(
        'select name from pg_prepared_statements where statement = $1',
        [SQL],
      );
      return rows.map((row) => row.name);
    });
    if (db.kind === 'postgres') {
      assert.equal(named.length, 1, 'one named statement on the connection, however often it ran');
      assert.match(named[0] ?? '', /^svc_[0-9a-f]{20}$/);
    } else assert.deepEqual(named, [], 'PGlite runs it unnamed');
  });

  test('a statement not marked is not kept', async () => {
    const other = 'select $1::int * 2 as twice /* prepared-statements test, unmarked */';
    const named = await db.transaction(async (tx) => {
      await tx.query(other, [3]);
      const { rows } = await tx.query('select name from pg_prepared_statements where statement = $1', [
        other,
      ]);
      return rows;
    });
    assert.deepEqual(named, []);
  });
});
