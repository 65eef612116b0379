import { isIP } from 'node:net';
import { type EncryptionKey, KEY_LIST_FORMAT, KeyFormatError, parseKeyList } from '../core/secrets/keys.ts';
import { ConfigError, type Env, text } from './parse.ts';

/** The settings that decide whom the service believes: proxies' forwarded addresses, encryption keys. */

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

export function trustedProxies(env: Env): string[] {
  const entries = (text(env, 'SVC_TRUST_PROXY') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !bitsOk || rest.length > 0)) {
      throw new ConfigError(
        'SVC_TRUST_PROXY',
        `comma-separated addresses, CIDR ranges or ${PROXY_NAMES.join(', ')}`,
        entry,
      );
    }
  }
  return entries;
}

export function encryptionKeys(
  env: Env,
  svcEnv: 'development' | 'production' | 'test',
): EncryptionKey[] | undefined {
  const raw = text(env, 'SVC_ENCRYPTION_KEY');
  if (raw === undefined) {
    if (svcEnv !== 'production') return undefined;
    throw new ConfigError(
      'SVC_ENCRYPTION_KEY',
      'a key, required when SVC_ENV=production (make one with `npx svc encryption-key`; see docs/configuration.md)',
      'nothing',
      { secret: true },
    );
  }
  try {
    return parseKeyList(raw);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    // The value is a secret: the message describes what is wrong without repeating it.
    throw new ConfigError('SVC_ENCRYPTION_KEY', KEY_LIST_FORMAT, error.detail, { secret: true });
  }
}
