import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appMigrations } from '../../src/app.ts';
import type { Database } from '../../src/core/db/database.ts';
import { migrate } from '../../src/core/db/migrations.ts';
import {
  SYSTEM_ROLE,
  systemRead,
  systemTx,
  TENANT_ROLE,
  tenantRead,
  tenantTx,
} from '../../src/core/db/tenant-tx.ts';
import { newId } from '../../src/core/ids.ts';
import { openDatabase } from '../../src/runtime.ts';
import { createTenantOn } from '../factories.ts';
import { testConfig } from '../helper.ts';

/**
 * Tables that hold no tenant's rows. Every other table must carry row-level security, enabled and forced.
 * Adding a table here needs a reason.
 */
const GLOBAL_TABLES: Record<string, string> = {
  svc_migrations: 'migration bookkeeping, owned by the migrating role; the tenant role has no grant on it',
  signing_keys: 'the service-wide session-token signing keys; the tenant role has no grant on it',
};

describe('row-level security guard', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(testConfig(), { inMemory: true });
    await migrate(db, appMigrations());
  });
  after(() => db.close());

  test('every table but the listed global ones has RLS enabled and forced, with both policies', async () => {
    const { rows } = await db.query<{ table: string; enabled: boolean; forced: boolean; policies: string[] }>(
      `select c.relname as table, c.relrowsecurity as enabled, c.relforcerowsecurity as forced,
              coalesce(array_agg(p.polname::text) filter (where p.polname is not null), '{}') as policies
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
         left join pg_policy p on p.polrelid = c.oid
        where n.nspname = 'public' and c.relkind in ('r', 'p')
        group by c.relname, c.relrowsecurity, c.relforcerowsecurity`,
    );
    assert.ok(rows.length > 1, 'expected tables to check');
    const escaped = rows
      .filter((r) => !(r.table in GLOBAL_TABLES))
      .filter(
        (r) =>
          !r.enabled ||
          !r.forced ||
          !r.policies.includes('tenant_isolation') ||
          !r.policies.includes('system_access'),
      )
      .map((r) => r.table);
    assert.deepEqual(escaped, [], `tables without forced row-level security: ${escaped.join(', ')}`);
  });

  test('the global tables are out of the tenant role’s reach', async () => {
    for (const table of Object.keys(GLOBAL_TABLES)) {
      const { rows } = await db.query<{ exists: boolean; allowed: boolean | null }>(
        `select to_regclass($1) is not null as exists,
                case when to_regclass($1) is null then null
                     else has_table_privilege($2, $1, 'select') end as allowed`,
        [table, TENANT_ROLE],
      );
      if (rows[0]?.exists === true) assert.equal(rows[0]?.allowed, false, `${TENANT_ROLE} can read ${table}`);
    }
  });

  test('the tenant and system roles own nothing and cannot bypass RLS', async () => {
    for (const role of [TENANT_ROLE, SYSTEM_ROLE]) {
      const { rows } = await db.query<{ super: boolean; bypass: boolean; login: boolean; owned: number }>(
        `select r.rolsuper as super, r.rolbypassrls as bypass, r.rolcanlogin as login,
                (select count(*)::int from pg_class c where c.relowner = r.oid) as owned
           from pg_roles r where r.rolname = $1`,
        [role],
      );
      assert.deepEqual(rows[0], { super: false, bypass: false, login: false, owned: 0 }, role);
    }
  });

  test("tenant A's transaction can neither read nor write tenant B's rows, even by hand-written SQL", async () => {
    const a = await createTenantOn(db, 'A');
    const b = await createTenantOn(db, 'B');

    await tenantTx(db, { tenantId: a }, async (tx) => {
      const all = await tx.query<{ id: string }>('select id from tenants');
      assert.deepEqual(
        all.rows.map((r) => r.id),
        [a],
      );
      const byId = await tx.query('select id from tenants where id = $1', [b]);
      assert.equal(byId.rows.length, 0);
      const updated = await tx.query(`update tenants set name = 'hijacked' where id = $1`, [b]);
      assert.equal(updated.rowCount, 0);
      const deleted = await tx.query('delete from tenants where id = $1', [b]);
      assert.equal(deleted.rowCount, 0);
      const { rows } = await tx.query<{ role: string }>('select current_user as role');
      assert.equal(rows[0]?.role, TENANT_ROLE);
    });

    await assert.rejects(
      tenantTx(db, { tenantId: a }, (tx) =>
        tx.query(`insert into tenants (id, name, workspace_type) values ($1, 'forged', 'sandbox')`, [
          newId('tenant', Date.now()),
        ]),
      ),
      /row-level security/,
    );
    await assert.rejects(
      tenantTx(db, { tenantId: a }, (tx) =>
        tx.query(`update tenants set id = $1 where id = $2`, [newId('tenant', Date.now()), a]),
      ),
      /row-level security/,
    );

    const after = await systemTx(db, (tx) =>
      tx.query<{ name: string }>('select name from tenants where id = $1', [b]),
    );
    assert.equal(after.rows[0]?.name, 'B');
  });

  test('single-statement tenant reads run as the tenant role and see their tenant only, whichever tenant a connection served before', async () => {
    const tenants = [
      await createTenantOn(db, 'R1'),
      await createTenantOn(db, 'R2'),
      await createTenantOn(db, 'R3'),
    ];
    // Interleaved and concurrent, so pooled connections go from one tenant to another.
    const reads = Array.from({ length: 60 }, (_, i) => tenants[i % tenants.length] ?? '');
    const seen = await Promise.all(
      reads.map((tenantId) =>
        tenantRead<{ ids: string[]; role: string }>(
          db,
          { tenantId },
          'select array_agg(id) as ids, current_user as role from tenants',
        ).then(({ rows }) => ({ tenantId, ...rows[0] })),
      ),
    );
    for (const read of seen) {
      assert.deepEqual(read.ids, [read.tenantId]);
      assert.equal(read.role, TENANT_ROLE);
    }
    await assert.rejects(tenantRead(db, { tenantId: "x' or true --" }, 'select 1'), /not a tenant id/);
    // A failed read leaves nothing behind: the next read of another tenant still sees only its own rows.
    await assert.rejects(tenantRead(db, { tenantId: tenants[0] ?? '' }, 'select * from no_such_table'));
    const next = await tenantRead<{ id: string }>(
      db,
      { tenantId: tenants[1] ?? '' },
      'select id from tenants',
    );
    assert.deepEqual(
      next.rows.map((r) => r.id),
      [tenants[1]],
    );
  });

  test('single-statement system reads see every tenant, also right after a tenant read; on PostgreSQL as svc_system', async () => {
    const tenants = [await createTenantOn(db, 'Y1'), await createTenantOn(db, 'Y2')];
    const ownRole = (await db.query<{ role: string }>('select current_user as role')).rows[0]?.role;
    // On PGlite a system read runs as the database's own user, a superuser (row-level security does not
    // hold it back); on PostgreSQL on connections that are svc_system for their whole life.
    const systemRole = db.kind === 'postgres' ? SYSTEM_ROLE : ownRole;
    const work = Array.from({ length: 40 }, async (_, i) => {
      const tenantId = tenants[i % 2] ?? '';
      if (i % 2 === 0) {
        const { rows } = await tenantRead<{ n: number }>(
          db,
          { tenantId },
          'select count(*)::int as n from tenants where id = any($1)',
          [tenants],
        );
        return { kind: 'tenant', n: rows[0]?.n };
      }
      const { rows } = await systemRead<{ n: number; role: string; tenant: string | null }>(
        db,
        `select count(*)::int as n, current_user as role,
                nullif(current_setting('svc.tenant_id', true), '') as tenant
           from tenants where id = any($1)`,
        [tenants],
      );
      return { kind: 'system', ...rows[0] };
    });
    for (const seen of await Promise.all(work)) {
      if (seen.kind === 'tenant') assert.equal(seen.n, 1);
      else assert.deepEqual(seen, { kind: 'system', n: 2, role: systemRole, tenant: null });
    }
    // A failed read leaves its connection usable: the next one still sees every tenant.
    await assert.rejects(systemRead(db, 'select * from no_such_table'));
    const next = await systemRead<{ n: number }>(
      db,
      'select count(*)::int as n from tenants where id = any($1)',
      [tenants],
    );
    assert.equal(next.rows[0]?.n, 2);
  });

  test('work other than tenant reads, interleaved with them, runs with the session’s own role and no tenant', async () => {
    const tenants = [await createTenantOn(db, 'S1'), await createTenantOn(db, 'S2')];
    const ownRole = (await db.query<{ role: string }>('select current_user as role')).rows[0]?.role;
    assert.notEqual(ownRole, TENANT_ROLE);
    const work = Array.from({ length: 40 }, async (_, i) => {
      const tenantId = tenants[i % 2] ?? '';
      switch (i % 4) {
        case 0:
          return {
            kind: 'read',
            tenantId,
            ...(
              await tenantRead<{ ids: string[]; role: string }>(
                db,
                { tenantId },
                'select array_agg(id) as ids, current_user as role from tenants',
              )
            ).rows[0],
          };
        case 1:
          return {
            kind: 'plain',
            ...(
              await db.query<{ role: string; tenant: string | null }>(
                "select current_user as role, nullif(current_setting('svc.tenant_id', true), '') as tenant",
              )
            ).rows[0],
          };
        case 2:
          return {
            kind: 'tx',
            ...(
              await db.transaction((tx) =>
                tx.query<{ role: string; tenant: string | null }>(
                  "select current_user as role, nullif(current_setting('svc.tenant_id', true), '') as tenant",
                ),
              )
            ).rows[0],
          };
        default:
          return {
            kind: 'system',
            ...(
              await systemTx(db, (tx) =>
                tx.query<{ n: number }>('select count(*)::int as n from tenants where id = any($1)', [
                  tenants,
                ]),
              )
            ).rows[0],
          };
      }
    });
    for (const seen of (await Promise.all(work)) as Record<string, unknown>[]) {
      if (seen.kind === 'read') {
        assert.deepEqual(seen.ids, [seen.tenantId]);
        assert.equal(seen.role, TENANT_ROLE);
      } else if (seen.kind === 'system') {
        assert.equal(seen.n, 2);
      } else {
        assert.deepEqual({ role: seen.role, tenant: seen.tenant }, { role: ownRole, tenant: null });
      }
    }
  });

  test('without a tenant set, the tenant role sees nothing', async () => {
    const seen = await db.transaction(async (tx) => {
      await tx.query(`select set_config('role', '${TENANT_ROLE}', true)`);
      return tx.query('select id from tenants');
    });
    assert.equal(seen.rows.length, 0);
  });
});
