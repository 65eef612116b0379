import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One AES-256 key and the id that names it inside every value it encrypts. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** How `SVC_ENCRYPTION_KEY` (and the data-dir key file) is written: one entry, or a list, current first. */
export const KEY_LIST_FORMAT =
  'comma-separated <id>:<base64 of 32 random bytes> entries, the current key first (id: 1-32 letters, digits, _ or -)';

const ID = /^[A-Za-z0-9_-]{1,32}$/;
// Standard or URL-safe base64 of exactly 32 bytes: 43 characters plus optional padding.
const MATERIAL = /^[A-Za-z0-9+/_-]{43}=?$/;

/** A list that does not parse; `detail` never contains key material. */
export class KeyFormatError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'KeyFormatError';
  }
}

export function parseKeyList(raw: string): EncryptionKey[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new KeyFormatError('no key');
  const keys: EncryptionKey[] = [];
  entries.forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon === -1) throw new KeyFormatError(`${where} has no "<id>:" before the key`);
    const id = entry.slice(0, colon);
    const material = entry.slice(colon + 1);
    if (!ID.test(id))
      throw new KeyFormatError(`${where}: the id ${JSON.stringify(id)} is not 1-32 of A-Z a-z 0-9 _ -`);
    if (!MATERIAL.test(material)) {
      throw new KeyFormatError(
        `${where} (${id}): the key is not base64 of 32 bytes (${material.length} characters)`,
      );
    }
    if (keys.some((k) => k.id === id)) throw new KeyFormatError(`${where}: the id ${id} is listed twice`);
    keys.push({ id, key: Buffer.from(material.replace(/-/g, '+').replace(/_/g, '/'), 'base64') });
  });
  return keys;
}

/** A new key as one list entry: `k<yyyymmdd>-<4 hex>:<base64>`, dated `now` (ms). */
export function newKeyEntry(now: number): string {
  const day = new Date(now).toISOString().slice(0, 10).replace(/-/g, '');
  return `k${day}-${randomBytes(2).toString('hex')}:${randomBytes(32).toString('base64')}`;
}

export const DATA_DIR_KEY_FILE = 'encryption-key';

/**
 * Outside production without `SVC_ENCRYPTION_KEY`: the key kept in `SVC_DATA_DIR/encryption-key` (mode
 * 0600), written on first use and read on every later start. The file takes the variable's format, so a
 * developer can rotate by editing it.
 */
export function dataDirKeys(dataDir: string, now: number): EncryptionKey[] {
  const file = path.join(dataDir, DATA_DIR_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    // Written whole beside it, then linked into place: two processes starting at once agree on one key,
    // and neither can read a half-written file.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(draft, `${newKeyEntry(now)}\n`, { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  try {
    return parseKeyList(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof KeyFormatError)
      throw new Error(`${file}: expected ${KEY_LIST_FORMAT}; ${error.detail}`);
    throw error;
  }
}
