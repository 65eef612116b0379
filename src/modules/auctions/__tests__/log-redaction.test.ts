import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { appSuite } from '../../../../test/support/suite.ts';
import { makeAuction } from './support.ts';

/** Migration 0095: frames logged before the reserve was kept from end users lose it too. */
describe('auction_log frames logged with the reserve amount', () => {
  const s = appSuite();

  test('lose it and say hasReserve, as new frames do', async () => {
    const auction = await makeAuction(s.t, s.key, { reservePrice: 5_432_109 });
    const logged = await s.t.db.query<{ frame: { auction: Record<string, unknown> } }>(
      'select frame from auction_log where auction_id = $1 and seq = 1',
      [auction.id],
    );
    assert.equal(logged.rows[0]?.frame.auction.reservePrice, undefined, 'a new frame has no reserve amount');
    assert.equal(logged.rows[0]?.frame.auction.hasReserve, true);
    // As an older version logged it: the whole auction, and an edit's changes.
    await s.t.db.query(
      `update auction_log set frame = jsonb_set(jsonb_set(frame #- '{auction,hasReserve}',
         '{auction,reservePrice}', '5432109'), '{changes}', '{"reservePrice": 5432109, "title": "x"}')
        where auction_id = $1`,
      [auction.id],
    );
    const sql = await readFile(
      new URL('../migrations/0095_auction_log_reserve.sql', import.meta.url),
      'utf8',
    );
    const statements = sql
      .replace(/^--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter((statement) => statement !== '');
    assert.equal(statements.length, 2);
    for (const statement of statements) await s.t.db.query(statement);
    const after = await s.t.db.query<{ frame: Record<string, unknown> }>(
      'select frame from auction_log where auction_id = $1',
      [auction.id],
    );
    assert.ok(after.rows.length > 0);
    for (const { frame } of after.rows) {
      assert.doesNotMatch(JSON.stringify(frame), /5432109/);
      assert.deepEqual(frame.changes, { title: 'x', hasReserve: true });
      assert.equal((frame.auction as Record<string, unknown>).hasReserve, true);
    }
  });
});
