import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyVerifier } from '../../src/core/auth/api-keys.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { systemTx } from '../../src/core/db/tenant-tx.ts';
import { createApiKey } from '../../src/core/tenancy/api-keys.ts';
import { createTenant } from '../../src/core/tenancy/tenants.ts';
import { openDatabase } from '../../src/runtime.ts';
import { testConfig } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { type WatchedQueries, watchQueries } from '../support/watched-queries.ts';

const KEY_ROW = 'from api_keys where prefix = $1';

// The API key verifier reads a key's row when its cache has none: the requests that miss it while that
// read is under way share it, and a revocation (evict) is never hidden by a read that started before it.
describe('API key row reads', () => {
  let db: Database;
  let watched: WatchedQueries;
  const clock = new ManualClock();
  /** Reads of a key's row (keyed by its prefix). */
  const reads = (prefix: string) => watched.reads.get(prefix) ?? 0;

  before(async () => {
    db = await openDatabase(testConfig(), { inMemory: true });
    watched = watchQueries(db, 'systemQuery', (args) =>
      String(args[0]).includes(KEY_ROW) ? String((args[1] as unknown[])[0]) : undefined,
    );
  });
  after(() => db.close());

  async function newKey(): Promise<{ key: string; id: string; prefix: string }> {
    const tenant = await createTenant(
      { db, clock },
      { name: 'key reads', workspaceType: 'sandbox', ownerEmail: 'owner@example.com' },
    );
    const created = await createApiKey(
      { db, clock, tenantId: tenant.id },
      { name: 'k', scopes: ['*'], knownScopes: [] },
    );
    return { key: created.key, id: created.id, prefix: created.prefix };
  }

  test('requests that miss the cache at the same time share one read of the key', async () => {
    const { key, prefix } = await newKey();
    const verifier = new ApiKeyVerifier(watched.db, clock);
    const principals = await Promise.all(Array.from({ length: 30 }, () => verifier.verify(key)));
    assert.equal(reads(prefix), 1, 'one read for thirty concurrent requests');
    assert.ok(principals.every((p) => p === principals[0]));
    await verifier.verify(key);
    assert.equal(reads(prefix), 1, 'then the cache answers');
    await assert.rejects(
      Promise.all([verifier.verify(`${key.slice(0, -1)}x`), verifier.verify(key)]),
      /not valid/,
      'a wrong secret with the same prefix is still refused',
    );
  });

  test('a key revoked while its read is under way is refused from the next request on', {
    timeout: 20_000,
  }, async () => {
    const { key, id, prefix } = await newKey();
    const verifier = new ApiKeyVerifier(watched.db, clock);
    const release = watched.hold(prefix);
    const before = verifier.verify(key);
    await eventually('the first read answered by the database', async () => reads(prefix) === 1);
    await systemTx(db, (tx) => tx.query('update api_keys set revoked_at = now() where id = $1', [id]));
    verifier.evict(id);
    await assert.rejects(verifier.verify(key), /not valid/, 'the request after the revocation reads it');
    release();
    assert.equal(
      (await before).kind,
      'api_key',
      'the read from before the revocation answers its own caller',
    );
    await assert.rejects(verifier.verify(key), /not valid/, 'and was not cached');
    assert.equal(reads(prefix), 2);
  });
});
