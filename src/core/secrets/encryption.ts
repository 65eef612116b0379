import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import { DATA_DIR_KEY_FILE, dataDirKeys, type EncryptionKey } from './keys.ts';

/**
 * Secrets the service must read back (webhook signing secrets, its own private keys) are stored encrypted
 * with AES-256-GCM. The stored value names its key: `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url
 * parts), so a value written under an old key still decrypts once that key is listed after the new one.
 * `context` says where the value lives (table, column, row); it is authenticated with the value, so a
 * value copied to another row or column does not decrypt.
 */
export interface SecretEncryption {
  /** The key new values are encrypted under (the first listed). */
  readonly currentKeyId: string;
  encrypt(plaintext: string, context: string): string;
  /** Throws `SecretDecryptionError` for a key not listed, a wrong key, another context or an altered value. */
  decrypt(stored: string, context: string): string;
  /** The key id a stored value names; undefined when it is not an encrypted value. */
  keyIdOf(stored: string): string | undefined;
}

export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptionError';
  }
}

const VERSION = 'v1';
const ENVELOPE = /^v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]*):([A-Za-z0-9_-]{22})$/;

export class AesGcmEncryption implements SecretEncryption {
  readonly currentKeyId: string;
  private readonly keys: Map<string, Buffer>;

  /** `source` names where the keys came from, for error messages (never the keys themselves). */
  constructor(
    keys: readonly EncryptionKey[],
    private readonly source = 'SVC_ENCRYPTION_KEY',
  ) {
    const [current] = keys;
    if (current === undefined) throw new Error(`${source}: no encryption key`);
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new Error(`${source}: key ${id} is not 32 bytes`);
    }
    this.currentKeyId = current.id;
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
  }

  encrypt(plaintext: string, context: string): string {
    const key = this.keys.get(this.currentKeyId);
    if (key === undefined) throw new Error('the current encryption key is missing');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(additionalData(this.currentKeyId, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.currentKeyId, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join(':');
  }

  decrypt(stored: string, context: string): string {
    const match = ENVELOPE.exec(stored);
    if (match === null) {
      throw new SecretDecryptionError(`the stored secret ${context} is not an encrypted value (${VERSION})`);
    }
    const [, keyId = '', iv = '', ciphertext = '', tag = ''] = match;
    const key = this.keys.get(keyId);
    if (key === undefined) {
      throw new SecretDecryptionError(
        `the stored secret ${context} is encrypted under key "${keyId}", which ${this.source} does not list ` +
          `(it lists ${[...this.keys.keys()].join(', ')}): add that key after the current one`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(additionalData(keyId, context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretDecryptionError(
        `the stored secret ${context} does not decrypt under key "${keyId}": ` +
          `${this.source} gives that id other key material, or the value was altered`,
      );
    }
  }

  keyIdOf(stored: string): string | undefined {
    return ENVELOPE.exec(stored)?.[1];
  }
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function additionalData(keyId: string, context: string): Buffer {
  return Buffer.from(`${VERSION}:${keyId}:${context}`, 'utf8');
}

/**
 * The app's encryption: `SVC_ENCRYPTION_KEY` when set (production requires it; `loadConfig` refuses to start
 * without), otherwise the key kept in `SVC_DATA_DIR/encryption-key`, created on first start.
 */
export function openEncryption(
  config: Pick<Config, 'env' | 'dataDir' | 'encryptionKeys'>,
  clock: Clock,
): AesGcmEncryption {
  if (config.encryptionKeys !== undefined) return new AesGcmEncryption(config.encryptionKeys);
  if (config.env === 'production') {
    throw new Error('SVC_ENCRYPTION_KEY is required when SVC_ENV=production');
  }
  return new AesGcmEncryption(
    dataDirKeys(config.dataDir, clock.now()),
    path.join(config.dataDir, DATA_DIR_KEY_FILE),
  );
}
