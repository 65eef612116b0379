import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { tenantTx } from '../../src/core/db/tenant-tx.ts';
import { ModuleEnablement } from '../../src/core/modules/enablement.ts';
import { createTenant } from '../../src/core/tenancy/tenants.ts';
import { openDatabase } from '../../src/runtime.ts';
import { testConfig } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { type WatchedQueries, watchQueries } from '../support/watched-queries.ts';

const TENANT = {
  name: 'enablement test',
  workspaceType: 'sandbox',
  ownerEmail: 'owner@example.com',
} as const;

// ModuleEnablement's cache of a tenant's module states: the calls that miss it while the tenant's read is
// under way share that read (a crowd joining a room at once reads the tenant's modules once), and a change
// made here is seen by the next call, never hidden by a read that started before it.
describe('module enablement', () => {
  let db: Database;
  let watched: WatchedQueries;
  let counted: Database;

  before(async () => {
    db = await openDatabase(testConfig(), { inMemory: true });
    // Tenant reads, by tenant.
    watched = watchQueries(db, 'tenantQuery', (args) => String(args[0]));
    counted = watched.db;
  });
  after(() => db.close());

  test('calls that miss the cache at the same time share one read of the tenant', async () => {
    const enablement = new ModuleEnablement(counted, new ManualClock());
    const answers = await Promise.all(Array.from({ length: 50 }, () => enablement.states('t_crowd')));
    assert.equal(watched.reads.get('t_crowd'), 1, 'one read for fifty concurrent calls');
    assert.ok(answers.every((states) => states === answers[0]));
    await enablement.states('t_crowd');
    assert.equal(watched.reads.get('t_crowd'), 1, 'then the cache answers');
    await Promise.all([enablement.states('t_one'), enablement.states('t_two')]);
    assert.deepEqual(
      [watched.reads.get('t_one'), watched.reads.get('t_two')],
      [1, 1],
      'each tenant its own read',
    );
  });

  test('after the cache runs out, the next concurrent misses share a new read', async () => {
    const clock = new ManualClock();
    const enablement = new ModuleEnablement(counted, clock);
    await enablement.states('t_expiry');
    clock.advance(1_000);
    await Promise.all(Array.from({ length: 20 }, () => enablement.states('t_expiry')));
    assert.equal(watched.reads.get('t_expiry'), 2);
  });

  test('a change invalidated while a read is under way is seen by the next call, and not cached stale', async () => {
    const enablement = new ModuleEnablement(counted, new ManualClock());
    const tenant = await createTenant({ db, clock: new ManualClock() }, TENANT);
    const tenantId = tenant.id;
    const release = watched.hold(tenantId);
    const stale = enablement.states(tenantId);
    // The read has run (its answer is held): the change comes after it.
    await eventually(
      'the first read answered by the database',
      async () => watched.reads.get(tenantId) === 1,
    );
    const { rows } = await db.tenantQuery<{ n: number }>(
      tenantId,
      'select count(*)::int as n from tenant_modules',
    );
    assert.equal(rows[0]?.n, 0);
    await tenantTx(db, { tenantId }, (tx) =>
      tx.query(`insert into tenant_modules (tenant_id, module, enabled) values ($1, 'polls', true)`, [
        tenantId,
      ]),
    );
    enablement.invalidate(tenantId);
    const fresh = await enablement.states(tenantId);
    assert.equal(fresh.get('polls')?.enabled, true, 'the call after the change reads it');
    release();
    assert.equal(
      (await stale).get('polls'),
      undefined,
      'the read from before the change answers its callers',
    );
    assert.equal(
      (await enablement.states(tenantId)).get('polls')?.enabled,
      true,
      'and is not what is cached',
    );
    assert.equal(watched.reads.get(tenantId), 2, 'the read from before the change and the one after');
  });
});
