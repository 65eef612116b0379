import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { enableModule } from '../../../../test/support/module-settings.ts';
import { appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import { systemContext } from '../../../core/modules/hooks.ts';
import { AnalyticsMaintenance } from '../maintenance.ts';
import { ensurePartitions } from '../postgres-store.ts';
import { actorNamed, hostOf, ingest, keyOf, tenantOf } from './support.ts';

const DAY = 86_400_000;
// Next year's March 10 (the console token, signed on the app's clock, is used before the clock moves there).
const YEAR = new Date().getUTCFullYear() + 1;
const NOW = Date.UTC(YEAR, 2, 10);
const month = (y: number, m: number) => `analytics_events_${y}${String(m).padStart(2, '0')}`;

describe('analytics retention and partitions', () => {
  const clock = new ManualClock(Date.now());
  const s = appSuite({ clock, tenants: 2 });
  const short = () => s.tenant;
  const long = () => tenantOf(s, 1);

  before(async () => {
    // The console token is signed on the real clock: this app's clock catches up with it first.
    clock.advance(Math.max(0, Date.now() - clock.now()));
    await enableModule(s.t, short(), 'analytics', { retentionDays: 30 });
    clock.advance(NOW - clock.now());
    for (const tenant of [short(), long()]) {
      const answer = await ingest(s.t, keyOf(tenant.apiKey), {
        batch: [10, 29, 31, 100, 399].map((days) => ({
          event: 'Aged',
          actor: actorNamed('test:a'),
          timestamp: new Date(NOW - days * DAY).toISOString(),
        })),
      });
      assert.equal(
        answer.accepted,
        tenant === short() ? 2 : 5,
        'the short tenant refuses what it would delete',
      );
    }
  });

  const counts = async (tenantId: string) => {
    const { rows } = await s.t.db.query<{ events: number; rolled: number }>(
      `select (select count(*)::int from analytics_events where tenant_id = $1) as events,
              (select coalesce(sum(events), 0)::int from analytics_hourly where tenant_id = $1) as rolled`,
      [tenantId],
    );
    return rows[0];
  };

  test("a pass creates the coming months' partitions, deletes past each tenant's retention, drops old partitions", async () => {
    // Events of the long tenant were accepted at 399 days; a year later the partitions they are in go.
    await ensurePartitions(s.t.db, [{ ts: Date.UTC(YEAR - 3, 0, 15) }]);
    const maintenance = new AnalyticsMaintenance(hostOf(s.t), (tenantId) =>
      systemContext(hostOf(s.t), tenantId),
    );
    const pass = await maintenance.pass();
    assert.equal(pass.ran, true);
    assert.ok(pass.dropped.includes(month(YEAR - 3, 1)), pass.dropped.join());
    const { rows } = await s.t.db.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'analytics_events'::regclass order by 1`,
    );
    const names = rows.map((r) => r.name);
    for (const m of [2, 3, 4, 5]) assert.ok(names.includes(month(YEAR, m)), names.join());
    assert.ok(!names.includes(month(YEAR - 3, 1)));
    assert.deepEqual(await counts(short().tenantId), { events: 2, rolled: 2 });
    assert.deepEqual(await counts(long().tenantId), { events: 5, rolled: 5 });

    clock.advance(10 * DAY);
    await maintenance.pass();
    assert.deepEqual(
      await counts(short().tenantId),
      { events: 1, rolled: 1 },
      '29 days old then, 39 now: past 30',
    );
    assert.deepEqual(await counts(long().tenantId), { events: 4, rolled: 4 }, '399 + 10 days is past 400');
  });
});
