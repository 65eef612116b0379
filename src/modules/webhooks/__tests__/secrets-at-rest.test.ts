import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildTestApp } from '../../../../test/helper.ts';
import { type IsolatedDatabase, isolatedDatabase } from '../../../../test/support/isolated-database.ts';
import type { Config } from '../../../config.ts';
import type { Database } from '../../../core/db/database.ts';
import { parseKeyList } from '../../../core/secrets/keys.ts';
import { ENDPOINT_SECRET, PREVIOUS_ENDPOINT_SECRET, readSecret } from '../endpoint-secrets.ts';
import { newId } from '../ids.ts';
import { createEndpoint, rotateSecret } from '../index.ts';
import {
  createTenant,
  ctxFor,
  futureClock,
  publishEvent,
  type Received,
  type Receiver,
  startReceiver,
  startWorker,
  waitForState,
  webhookConfig,
} from './support.ts';

const KEY_A = `key-a:${Buffer.alloc(32, 1).toString('base64')}`;
const KEY_B = `key-b:${Buffer.alloc(32, 2).toString('base64')}`;
const KEY_C = `key-c:${Buffer.alloc(32, 3).toString('base64')}`;
const withKeys = (list: string): Config => webhookConfig({ encryptionKeys: parseKeyList(list) });

const OLD_SECRET = 'the-first-secret-0001';
const NEW_SECRET = 'the-second-secret-0002';

interface EndpointSecrets {
  secret: string | null;
  secret_encrypted: string | null;
  previous_secret: string | null;
  previous_secret_encrypted: string | null;
}

/** The row as the owner of the table reads it: what a database dump or backup holds. */
async function storedRow(db: Database, id: string): Promise<EndpointSecrets & Record<string, unknown>> {
  const { rows } = await db.query<EndpointSecrets & Record<string, unknown>>(
    'select * from webhook_endpoints where id = $1',
    [id],
  );
  const row = rows[0];
  if (row === undefined) throw new Error(`no endpoint ${id}`);
  return row;
}

/** `X-SVC-Signature` lists one signature per secret in use; does one of them come from `secret`? */
function signedWith(request: Received, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.raw).digest('hex')}`);
  return String(request.headers['x-svc-signature'])
    .split(',')
    .some((sig) => {
      const given = Buffer.from(sig.trim());
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** One event to the tenant's endpoints, delivered by a worker under `config`'s keys. */
async function deliverOne(
  db: Database,
  receiver: Receiver,
  tenantId: string,
  config: Config,
): Promise<Received> {
  const { deliveryIds } = await publishEvent(db, tenantId, 'room.created', { roomId: 'room_1' });
  const [id = ''] = deliveryIds;
  const worker = startWorker({ db, clock: futureClock, config, tenantIds: [tenantId] });
  try {
    await waitForState(db, id, 'delivered');
  } finally {
    await worker.stop();
  }
  const request = receiver.received.find((r) => r.headers['x-svc-delivery'] === id);
  if (request === undefined) throw new Error(`delivery ${id} never arrived`);
  return request;
}

// A database of its own: rows under other keys (or plain, as before encryption) would stop every other
// test app's start on a shared one.
describe('webhook endpoint secrets at rest', () => {
  let isolated: IsolatedDatabase;
  let db: Database;
  let receiver: Receiver;
  before(async () => {
    isolated = await isolatedDatabase('webhook_secrets');
    db = isolated.db;
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await isolated.close();
  });

  test('stored encrypted, never plain, rotation included; deliveries are signed with the real secrets', async () => {
    const config = withKeys(KEY_A);
    const tenantId = await createTenant(db);
    const ctx = ctxFor(db, tenantId, config);
    const endpoint = await createEndpoint(ctx, { url: receiver.url, secret: OLD_SECRET });
    const created = await storedRow(db, endpoint.id);
    assert.equal(created.secret, null);
    assert.match(String(created.secret_encrypted), /^v1:key-a:/);
    assert.ok(!JSON.stringify(created).includes(OLD_SECRET), 'the secret appears nowhere in the row');

    await rotateSecret(ctx, { id: endpoint.id, secret: NEW_SECRET, graceSeconds: 3600 });
    const rotated = await storedRow(db, endpoint.id);
    assert.equal(rotated.secret, null);
    assert.equal(rotated.previous_secret, null);
    assert.match(String(rotated.secret_encrypted), /^v1:key-a:/);
    assert.match(String(rotated.previous_secret_encrypted), /^v1:key-a:/);
    const dump = JSON.stringify(rotated);
    assert.ok(!dump.includes(OLD_SECRET) && !dump.includes(NEW_SECRET), 'neither secret appears in the row');

    const request = await deliverOne(db, receiver, tenantId, config);
    assert.ok(signedWith(request, NEW_SECRET), 'signed with the new secret');
    assert.ok(signedWith(request, OLD_SECRET), 'and, during the grace, with the old one');
  });

  test('rows stored plain before encryption: still signed with, then encrypted at start without loss', async () => {
    const config = withKeys(KEY_A);
    const tenantId = await createTenant(db);
    const id = newId('webhookEndpoint', Date.now());
    const now = new Date(futureClock.now());
    // What the previous version wrote.
    await db.query(
      `insert into webhook_endpoints (id, tenant_id, url, secret, previous_secret, previous_secret_expires_at,
                                      event_types, enabled, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, null, true, $7, $7)`,
      [id, tenantId, receiver.url, NEW_SECRET, OLD_SECRET, new Date(now.getTime() + 3_600_000), now],
    );
    const before = await deliverOne(db, receiver, tenantId, config);
    assert.ok(
      signedWith(before, NEW_SECRET) && signedWith(before, OLD_SECRET),
      'plain rows are read as they are',
    );

    const t = await buildTestApp({ db, config: { encryptionKeys: config.encryptionKeys } });
    await t.close();
    const row = await storedRow(db, id);
    assert.equal(row.secret, null, 'the plain copy is cleared');
    assert.equal(row.previous_secret, null);
    const dump = JSON.stringify(row);
    assert.ok(!dump.includes(OLD_SECRET) && !dump.includes(NEW_SECRET));
    const encryption = ctxFor(db, tenantId, config).encryption;
    const endpoint = { tenantId, endpointId: id };
    const current = { column: ENDPOINT_SECRET, encrypted: row.secret_encrypted, plain: row.secret };
    const previous = {
      column: PREVIOUS_ENDPOINT_SECRET,
      encrypted: row.previous_secret_encrypted,
      plain: row.previous_secret,
    };
    assert.equal(readSecret(encryption, current, endpoint), NEW_SECRET);
    assert.equal(readSecret(encryption, previous, endpoint), OLD_SECRET);

    const afterwards = await deliverOne(db, receiver, tenantId, config);
    assert.ok(signedWith(afterwards, NEW_SECRET) && signedWith(afterwards, OLD_SECRET));
  });

  test('key rotation A -> B,A re-encrypts under B; with B alone deliveries verify; an unlisted key stops the start', async () => {
    const tenantId = await createTenant(db);
    const endpoint = await createEndpoint(ctxFor(db, tenantId, withKeys(KEY_A)), {
      url: receiver.url,
      secret: OLD_SECRET,
    });
    assert.match(String((await storedRow(db, endpoint.id)).secret_encrypted), /^v1:key-a:/);

    const t = await buildTestApp({ db, config: { encryptionKeys: parseKeyList(`${KEY_B},${KEY_A}`) } });
    await t.close();
    const { rows } = await db.query<{
      id: string;
      secret_encrypted: string;
      previous_secret_encrypted: string | null;
    }>('select id, secret_encrypted, previous_secret_encrypted from webhook_endpoints');
    for (const row of rows) {
      assert.match(row.secret_encrypted, /^v1:key-b:/, `${row.id} is under the new key`);
      if (row.previous_secret_encrypted !== null) assert.match(row.previous_secret_encrypted, /^v1:key-b:/);
    }

    const request = await deliverOne(db, receiver, tenantId, withKeys(KEY_B));
    assert.ok(signedWith(request, OLD_SECRET), 'the secret survived the re-encryption');

    await assert.rejects(
      buildTestApp({ db, config: { encryptionKeys: parseKeyList(KEY_C) } }),
      /encrypted under key "key-b", which SVC_ENCRYPTION_KEY does not list \(it lists key-c\)/,
    );
  });
});
