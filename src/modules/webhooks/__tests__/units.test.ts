import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isId, newId } from '../ids.ts';
import { eventTypeMatchSql, isBlockedAddress } from '../index.ts';
import { retryDelay } from '../worker/schedule.ts';
import { openTestDb } from './support.ts';

describe('webhook rules', () => {
  test('event type matching (SQL): null, exact, prefix.* at any depth but not the prefix itself', async () => {
    const db = await openTestDb();
    try {
      const matches = async (filter: string[] | null, type: string) => {
        const { rows } = await db.query<{ m: boolean }>(
          `select ${eventTypeMatchSql('$1::text[]', '$2::text')} as m`,
          [filter, type],
        );
        return rows[0]?.m;
      };
      assert.equal(await matches(null, 'anything.at.all'), true);
      assert.equal(await matches(['room.created'], 'room.created'), true);
      assert.equal(await matches(['room.created'], 'room.closed'), false);
      assert.equal(await matches(['room.created'], 'room.created.extra'), false);
      assert.equal(await matches(['auction.*'], 'auction.started'), true);
      assert.equal(await matches(['auction.*'], 'auction.bid.placed'), true);
      assert.equal(await matches(['auction.*'], 'auction'), false);
      assert.equal(await matches(['auction.*'], 'auction.'), false);
      assert.equal(await matches(['auction.*'], 'auctions.started'), false);
      assert.equal(await matches(['room.created', 'chat.*'], 'chat.message.sent'), true);
      assert.equal(await matches(['room.created', 'chat.*'], 'room.closed'), false);
    } finally {
      await db.close();
    }
  });

  test('delivery ids minted in SQL have the layout of newId: the time, then 80 random bits', async () => {
    const db = await openTestDb();
    try {
      for (const at of [0, 1, Date.UTC(2026, 10, 22, 15, 30), Date.UTC(2200, 0, 1), 2 ** 48 - 1]) {
        const { rows } = await db.query<{ id: string }>(
          "select 'whd_' || svc_id_suffix($1) as id from generate_series(1, 50)",
          [at],
        );
        const ids = rows.map((r) => r.id);
        for (const id of ids) {
          assert.ok(isId('webhookDelivery', id), id);
          assert.equal(id.slice(0, 14), newId('webhookDelivery', at).slice(0, 14), `time part of ${id}`);
        }
        assert.equal(new Set(ids.map((id) => id.slice(14))).size, ids.length, 'random parts differ');
      }
      await assert.rejects(db.query('select svc_id_suffix($1)', [2 ** 48]), /48-bit/);
    } finally {
      await db.close();
    }
  });

  test('blocked addresses: private, loopback, link-local, metadata, mapped forms; public ones pass', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::10.0.0.1',
      '2002:7f00:0001::1',
      'not-an-ip',
    ]) {
      assert.equal(isBlockedAddress(address), true, `${address} must be blocked`);
    }
    for (const address of [
      '93.184.216.34',
      '1.1.1.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isBlockedAddress(address), false, `${address} is public`);
    }
  });

  test('retry delays follow the schedule, jitter adds at most a tenth, then none remain', () => {
    const schedule = [1000, 5000, 30_000, 300_000, 1_800_000];
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => retryDelay(schedule, n, () => 0)),
      [1000, 5000, 30_000, 300_000, 1_800_000, undefined],
    );
    assert.equal(
      retryDelay(schedule, 1, () => 0.5),
      1050,
    );
    assert.equal(
      retryDelay(schedule, 5, () => 0.999_999),
      1_979_999,
    );
    assert.equal(
      retryDelay([], 1, () => 0),
      undefined,
    );
  });
});
