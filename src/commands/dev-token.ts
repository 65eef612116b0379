import type { Config } from '../config.ts';
import { systemClock } from '../core/clock.ts';

function flag(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index === -1) return undefined;
  const value = argv[index + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  return value;
}

/** `svc dev-token`: a hosted-auth JWT from the development issuer the service made in SVC_DATA_DIR. */
export async function devToken(config: Config, argv: string[]): Promise<number> {
  if (config.env === 'production') {
    process.stderr.write('svc: dev-token is refused in production (SVC_ENV=production)\n');
    return 2;
  }
  const { DEV_OWNER_EMAIL, DEV_OWNER_SUB, loadDevIssuer, signDevToken } = await import(
    '../core/auth/dev-issuer.ts'
  );
  // Only the key the service made: a new one here would sign tokens no running service accepts.
  const issuer = await loadDevIssuer(config.dataDir, { create: false });
  if (issuer === undefined) {
    process.stderr.write(
      `svc: no development issuer key in ${config.dataDir} (SVC_DATA_DIR): start the service first, ` +
        'and run dev-token with the SVC_DATA_DIR the service uses\n',
    );
    return 1;
  }
  const sub = flag(argv, '--sub') ?? DEV_OWNER_SUB;
  const email = flag(argv, '--email') ?? (sub === DEV_OWNER_SUB ? DEV_OWNER_EMAIL : undefined);
  const ttlRaw = flag(argv, '--ttl');
  const ttl = ttlRaw === undefined ? 3600 : Number(ttlRaw);
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 30 * 86_400)
    throw new Error('--ttl takes whole seconds, 1 to 2592000');
  const token = await signDevToken(
    issuer,
    {
      sub,
      ...(email === undefined ? {} : { email }),
      ttlSeconds: ttl,
    },
    systemClock.now(),
  );
  process.stdout.write(`${token}\n`);
  return 0;
}
