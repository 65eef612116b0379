import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemTx } from '../db/tenant-tx.ts';
import { newIdSuffix } from '../ids.ts';
import type { SecretEncryption } from '../secrets/encryption.ts';
import { type EncryptedColumn, secretContext } from '../secrets/stored-secrets.ts';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

export const SESSION_ALG = 'EdDSA';
const SIGNING_KEY_LOCK = 0x5_17c_0002;

/** The private half of each signing key is stored encrypted (migration 0007 moved it out of `private_jwk`). */
export const SIGNING_KEY_SECRET: EncryptedColumn = {
  table: 'signing_keys',
  column: 'private_jwk_encrypted',
  rowKey: ['kid'],
  plainColumn: 'private_jwk',
};

interface KeyRow {
  kid: string;
  private_jwk: JWK | null;
  private_jwk_encrypted: string | null;
  public_jwk: JWK;
  created_at: Date;
}

interface KeyEntry {
  kid: string;
  privateKey: SigningKey;
  publicKey: SigningKey;
  publicJwk: JWK;
  createdAt: number;
}

/**
 * The service's own keys for session tokens, shared by every instance through the database so a token
 * minted on one verifies on all. The newest key signs; every unretired key verifies.
 */
export class SessionKeyRing {
  private keys = new Map<string, KeyEntry>();
  private lastReload = 0;

  constructor(
    private readonly db: Database,
    private readonly encryption: SecretEncryption,
    private readonly clock: Clock,
  ) {}

  async load(): Promise<void> {
    await this.reload();
    if (this.keys.size > 0) return;
    // Instances starting together on an empty database must agree on one key, not each mint their own
    // (their tokens would not verify elsewhere until the next reload).
    await this.db.withAdvisoryLock(SIGNING_KEY_LOCK, async () => {
      await this.reload();
      if (this.keys.size > 0) return;
      const { privateKey, publicKey } = await generateKeyPair(SESSION_ALG, {
        extractable: true,
        crv: 'Ed25519',
      });
      const kid = `sk_${newIdSuffix(this.clock.now())}`;
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SESSION_ALG, use: 'sig' };
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SESSION_ALG, use: 'sig' };
      await systemTx(this.db, (tx) =>
        tx.query(
          'insert into signing_keys (kid, alg, private_jwk_encrypted, public_jwk) values ($1, $2, $3, $4)',
          [
            kid,
            SESSION_ALG,
            this.encryption.encrypt(JSON.stringify(privateJwk), secretContext(SIGNING_KEY_SECRET, [kid])),
            JSON.stringify(publicJwk),
          ],
        ),
      );
      await this.reload();
    });
  }

  private async reload(): Promise<void> {
    this.lastReload = this.clock.now();
    const { rows } = await systemTx(this.db, (tx) =>
      tx.query<KeyRow>(
        `select kid, private_jwk, private_jwk_encrypted, public_jwk, created_at
           from signing_keys where retired_at is null`,
      ),
    );
    const next = new Map<string, KeyEntry>();
    for (const row of rows) {
      next.set(row.kid, {
        kid: row.kid,
        privateKey: await importJWK(this.privateJwk(row), SESSION_ALG),
        publicKey: await importJWK(row.public_jwk, SESSION_ALG),
        publicJwk: row.public_jwk,
        createdAt: new Date(row.created_at).getTime(),
      });
    }
    this.keys = next;
  }

  /** Encrypted, or (a row written before encryption, until start-up encrypts it) plain. */
  private privateJwk(row: KeyRow): JWK {
    if (row.private_jwk_encrypted !== null) {
      const context = secretContext(SIGNING_KEY_SECRET, [row.kid]);
      return JSON.parse(this.encryption.decrypt(row.private_jwk_encrypted, context)) as JWK;
    }
    if (row.private_jwk === null) throw new Error(`signing key ${row.kid} has no private key`);
    return row.private_jwk;
  }

  signingKey(): KeyEntry {
    let newest: KeyEntry | undefined;
    for (const key of this.keys.values()) {
      if (
        newest === undefined ||
        key.createdAt > newest.createdAt ||
        (key.createdAt === newest.createdAt && key.kid > newest.kid)
      ) {
        newest = key;
      }
    }
    if (newest === undefined) throw new Error('session signing keys are not loaded');
    return newest;
  }

  /** A kid minted by another instance after our last load triggers one reload (at most every 5 s). */
  async verificationKey(kid: string | undefined): Promise<SigningKey | undefined> {
    if (kid === undefined) return undefined;
    const known = this.keys.get(kid);
    if (known !== undefined) return known.publicKey;
    if (this.clock.now() - this.lastReload < 5_000) return undefined;
    await this.reload();
    return this.keys.get(kid)?.publicKey;
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].map((k) => k.publicJwk) };
  }
}
