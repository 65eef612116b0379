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
  /** The tenant reads `db` answered, by tenant. */
  const reads = new Map<string, number>();
  /** A tenant's reads run at once but their answers wait for this. */
  const heldAnswers = new Map<string, Promise<void>>();
  let counted: Database;

  before(async () => {
    db = await openDatabase(testConfig(), { inMemory: true });
    counted = new Proxy(db, {
      get(target, key) {
        if (key === 'tenantQuery') {
          return (tenantId: string, ...rest: [string, (readonly unknown[])?]) => {
            reads.set(tenantId, (reads.get(tenantId) ?? 0) + 1);
            const answer = target.tenantQuery(tenantId, ...rest);
            const held = heldAnswers.get(tenantId);
            if (held === undefined) return answer;
            return answer.then(async (result) => {
              await held;
              return result;
            });
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  });
  after(() => db.close());

  test('calls that miss the cache at the same time share one read of the tenant', async () => {
    const enablement = new ModuleEnablement(counted, new ManualClock());
    const answers = await Promise.all(Array.from({ length: 50 }, () => enablement.states('t_crowd')));
    assert.equal(reads.get('t_crowd'), 1, 'one read for fifty concurrent calls');
    assert.ok(answers.every((states) => states === answers[0]));
    await enablement.states('t_crowd');
    assert.equal(reads.get('t_crowd'), 1, 'then the cache answers');
    await Promise.all([enablement.states('t_one'), enablement.states('t_two')]);
    assert.deepEqual([reads.get('t_one'), reads.get('t_two')], [1, 1], 'each tenant its own read');
  });

  test('after the cache runs out, the next concurrent misses share a new read', async () => {
    const clock = new ManualClock();
    const enablement = new ModuleEnablement(counted, clock);
    await enablement.states('t_expiry');
    clock.advance(1_000);
    await Promise.all(Array.from({ length: 20 }, () => enablement.states('t_expiry')));
    assert.equal(reads.get('t_expiry'), 2);
  });

  test('a change invalidated while a read is under way is seen by the next call, and not cached stale', async () => {
    const enablement = new ModuleEnablement(counted, new ManualClock());
    const tenant = await createTenant({ db, clock: new ManualClock() }, TENANT);
    const tenantId = tenant.id;
    let release = () => {};
    heldAnswers.set(tenantId, new Promise<void>((resolve) => (release = resolve)));
    const stale = enablement.states(tenantId);
    // The read has run (its answer is held): the change comes after it.
    await eventually('the first read answered by the database', async () => reads.get(tenantId) === 1);
    const { rows } = await db.tenantQuery<{ n: number }>(
      tenantId,
      'select count(*)::int as n from tenant_modules',
    );
    assert.equal(rows[0]?.n, 0);
    heldAnswers.delete(tenantId);
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
    assert.equal(reads.get(tenantId), 2, 'the read from before the change and the one after');
  });
});
