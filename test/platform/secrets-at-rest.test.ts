import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { SIGNING_KEY_SECRET } from '../../src/core/auth/signing-keys.ts';
import { systemClock } from '../../src/core/clock.ts';
import {
  AesGcmEncryption,
  openEncryption,
  SecretDecryptionError,
} from '../../src/core/secrets/encryption.ts';
import { DATA_DIR_KEY_FILE, parseKeyList } from '../../src/core/secrets/keys.ts';
import { secretContext } from '../../src/core/secrets/stored-secrets.ts';
import { createRuntime } from '../../src/runtime.ts';
import { bearer, connectSession, createTestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp, testConfig } from '../helper.ts';
import { isolatedDatabase } from '../support/isolated-database.ts';

const KEY_A = `key-a:${Buffer.alloc(32, 1).toString('base64')}`;
const KEY_B = `key-b:${Buffer.alloc(32, 2).toString('base64')}`;
const KEY_C = `key-c:${Buffer.alloc(32, 3).toString('base64')}`;
/** Key B's id with other key material: what a mistyped key looks like. */
const KEY_B_WRONG = `key-b:${Buffer.alloc(32, 9).toString('base64')}`;
const keys = (list: string) => ({ encryptionKeys: parseKeyList(list) });

interface SigningKeyRow {
  kid: string;
  private_jwk: unknown;
  private_jwk_encrypted: string | null;
  public_jwk: { x: string };
}

/** As the owner of the tables sees them: what a stolen backup holds. */
async function signingKeyRows(t: Pick<TestApp, 'db'>): Promise<SigningKeyRow[]> {
  const { rows } = await t.db.query<SigningKeyRow>(
    'select kid, private_jwk, private_jwk_encrypted, public_jwk from signing_keys where retired_at is null',
  );
  return rows;
}

/** A session token of a new tenant, minted by the app through POST /v1/runtime/connect. */
async function sessionToken(t: TestApp): Promise<string> {
  const tenant = await createTestTenant(t);
  return (await connectSession(t, tenant.apiKey)).token;
}

async function accepted(t: TestApp, token: string): Promise<number> {
  return (await call(t.app, { method: 'GET', url: '/v1/me', headers: bearer(token) })).statusCode;
}

describe('encryption of secrets at rest (AES-256-GCM, key ids, rotation)', () => {
  const context = 'webhook_endpoints.secret_encrypted/ten_1/whe_1';

  test('a value names its key, hides the plaintext and decrypts only in its own context', () => {
    const a = new AesGcmEncryption(parseKeyList(KEY_A));
    const stored = a.encrypt('the secret value', context);
    assert.match(stored, /^v1:key-a:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$/);
    assert.ok(!stored.includes('the secret value'));
    assert.notEqual(a.encrypt('the secret value', context), stored, 'a fresh IV every time');
    assert.equal(a.decrypt(stored, context), 'the secret value');
    assert.equal(a.keyIdOf(stored), 'key-a');
    // Copied to another row, or altered: refused, never garbage.
    assert.throws(
      () => a.decrypt(stored, 'webhook_endpoints.secret_encrypted/ten_2/whe_1'),
      SecretDecryptionError,
    );
    const [head, iv, body = '', tag] = [stored.slice(0, 9), ...stored.slice(9).split(':')];
    const flipped = `${body.startsWith('A') ? 'B' : 'A'}${body.slice(1)}`;
    assert.throws(
      () => a.decrypt(`${head}${iv}:${flipped}:${tag}`, context),
      /does not decrypt under key "key-a"/,
    );
    assert.throws(() => a.decrypt('plain text', context), /is not an encrypted value/);
  });

  test('rotation: written under A, read with B,A (new values under B), refused clearly without A', () => {
    const storedUnderA = new AesGcmEncryption(parseKeyList(KEY_A)).encrypt('s3cret', context);
    const rotated = new AesGcmEncryption(parseKeyList(`${KEY_B},${KEY_A}`));
    assert.equal(rotated.currentKeyId, 'key-b');
    assert.equal(rotated.decrypt(storedUnderA, context), 's3cret');
    assert.equal(rotated.keyIdOf(rotated.encrypt('s3cret', context)), 'key-b');
    const withoutA = new AesGcmEncryption(parseKeyList(KEY_B));
    assert.throws(
      () => withoutA.decrypt(storedUnderA, context),
      (error: Error) =>
        error instanceof SecretDecryptionError &&
        /encrypted under key "key-a", which SVC_ENCRYPTION_KEY does not list \(it lists key-b\)/.test(
          error.message,
        ) &&
        !error.message.includes(Buffer.alloc(32, 2).toString('base64')),
    );
    assert.throws(
      () => new AesGcmEncryption(parseKeyList(KEY_B_WRONG)).decrypt(rotated.encrypt('x', context), context),
      /does not decrypt under key "key-b"/,
    );
  });

  test('outside production without SVC_ENCRYPTION_KEY: one key generated in SVC_DATA_DIR (0600) and reused', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-key-'));
    try {
      const first = openEncryption({ env: 'development', dataDir, encryptionKeys: undefined }, systemClock);
      const file = path.join(dataDir, DATA_DIR_KEY_FILE);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'only the owner reads the key file');
      const stored = first.encrypt('kept', context);
      const again = openEncryption({ env: 'development', dataDir, encryptionKeys: undefined }, systemClock);
      assert.equal(again.currentKeyId, first.currentKeyId);
      assert.equal(again.decrypt(stored, context), 'kept', 'the next start reads what the last one wrote');
      assert.throws(
        () => openEncryption({ env: 'production', dataDir, encryptionKeys: undefined }, systemClock),
        /SVC_ENCRYPTION_KEY is required when SVC_ENV=production/,
      );
      // Tests get their key from the configuration: no file.
      const testsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-key-'));
      openEncryption(testConfig({ dataDir: testsDir }), systemClock);
      assert.deepEqual(fs.readdirSync(testsDir), []);
      fs.rmSync(testsDir, { recursive: true, force: true });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('session signing keys at rest', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('the stored private key is encrypted; tokens signed with it verify', async () => {
    const rows = await signingKeyRows(t);
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.equal(row.private_jwk, null, `signing key ${row.kid} has no plain private key`);
      assert.match(String(row.private_jwk_encrypted), /^v1:test-key:/);
      assert.ok(!String(row.private_jwk_encrypted).includes('"d"'));
      // It is the private half of the published key.
      const jwk = JSON.parse(
        t.app.services.encryption.decrypt(
          String(row.private_jwk_encrypted),
          secretContext(SIGNING_KEY_SECRET, [row.kid]),
        ),
      ) as { d?: string; x?: string };
      assert.equal(typeof jwk.d, 'string');
      assert.equal(jwk.x, row.public_jwk.x);
    }
    const token = await sessionToken(t);
    assert.equal(await accepted(t, token), 200);
  });
});

describe('session signing keys across key changes (a database of their own)', () => {
  test('a key stored plain before encryption is encrypted at start and keeps signing', async () => {
    const isolated = await isolatedDatabase('legacy_keys');
    try {
      // What the previous version wrote: the private JWK as it is.
      const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const kid = 'sk_legacy_key_0001';
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'EdDSA', use: 'sig' };
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
      await isolated.db.query(
        'insert into signing_keys (kid, alg, private_jwk, public_jwk) values ($1, $2, $3, $4)',
        [kid, 'EdDSA', JSON.stringify(privateJwk), JSON.stringify(publicJwk)],
      );

      const t = await buildTestApp({ db: isolated.db, config: keys(KEY_A) });
      try {
        const [row, ...others] = await signingKeyRows(t);
        assert.equal(others.length, 0, 'no new key was made: the old one is kept');
        assert.equal(row?.kid, kid);
        assert.equal(row?.private_jwk, null, 'the plain copy is gone');
        assert.match(String(row?.private_jwk_encrypted), /^v1:key-a:/);
        const token = await sessionToken(t);
        assert.equal(decodeProtectedHeader(token).kid, kid);
        await jwtVerify(token, publicKey);
        assert.equal(await accepted(t, token), 200);
      } finally {
        await t.close();
      }
    } finally {
      await isolated.close();
    }
  });

  test('rotation A -> B,A re-encrypts under B and old tokens still verify; a key not listed stops the start', async () => {
    const isolated = await isolatedDatabase('rotation');
    try {
      const first = await buildTestApp({ db: isolated.db, config: keys(KEY_A) });
      let token: string;
      try {
        token = await sessionToken(first);
        const [row] = await signingKeyRows(first);
        assert.match(String(row?.private_jwk_encrypted), /^v1:key-a:/);
      } finally {
        await first.close();
      }

      const rotated = await buildTestApp({ db: isolated.db, config: keys(`${KEY_B},${KEY_A}`) });
      try {
        const rows = await signingKeyRows(rotated);
        assert.ok(
          rows.every((r) => String(r.private_jwk_encrypted).startsWith('v1:key-b:')),
          'all under B now',
        );
        assert.equal(await accepted(rotated, token), 200, 'a token signed before the rotation');
      } finally {
        await rotated.close();
      }

      const onlyB = await buildTestApp({ db: isolated.db, config: keys(KEY_B) });
      try {
        assert.equal(await accepted(onlyB, token), 200, 'after re-encryption A is no longer needed');
      } finally {
        await onlyB.close();
      }

      await assert.rejects(
        buildTestApp({ db: isolated.db, config: keys(KEY_C) }),
        /encrypted under key "key-b", which SVC_ENCRYPTION_KEY does not list \(it lists key-c\)/,
      );
      await assert.rejects(
        buildTestApp({ db: isolated.db, config: keys(KEY_B_WRONG) }),
        /does not decrypt under key "key-b"/,
      );
    } finally {
      await isolated.close();
    }
  });

  test('the embedded default: the key generated in SVC_DATA_DIR is used again after a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-embedded-'));
    const config = testConfig({
      dataDir,
      databaseUrl: undefined,
      encryptionKeys: undefined,
      env: 'development',
    });
    try {
      const first = await createRuntime(config, { workers: false });
      let token: string;
      try {
        token = await sessionToken({ app: first.app, db: first.db, config, close: first.close });
      } finally {
        await first.close();
      }
      const keyFile = fs.readFileSync(path.join(dataDir, DATA_DIR_KEY_FILE), 'utf8');
      const keyId = keyFile.slice(0, keyFile.indexOf(':'));

      const second = await createRuntime(config, { workers: false });
      try {
        const restarted = { app: second.app, db: second.db, config, close: second.close };
        const [row] = await signingKeyRows(restarted);
        assert.ok(String(row?.private_jwk_encrypted).startsWith(`v1:${keyId}:`));
        assert.equal(await accepted(restarted, token), 200, 'the signing key decrypts after the restart');
      } finally {
        await second.close();
      }
      assert.equal(fs.readFileSync(path.join(dataDir, DATA_DIR_KEY_FILE), 'utf8'), keyFile, 'the same key');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
