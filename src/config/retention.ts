import { ConfigError, type Env, text } from './parse.ts';

const AGE_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Ten years: longer than anything is worth keeping as bookkeeping, short enough to stay exact. */
const MAX_AGE_MS = 3650 * 86_400_000;

/** `SVC_RETENTION=chat_changes=30d,events=off`: rule name = age (`<n>m`, `<n>h`, `<n>d`) or `off`. */
export function retentionAges(env: Env): Record<string, number | null> {
  const expected = 'comma-separated <rule>=<age> entries, the age like 90m, 12h, 30d, or off';
  const ages: Record<string, number | null> = {};
  const entries = (text(env, 'SVC_RETENTION') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const match = /^([a-z][a-z0-9_]{1,62})\s*=\s*(off|(\d{1,6})([mhd]))$/.exec(entry);
    const name = match?.[1];
    if (match === null || name === undefined || Object.hasOwn(ages, name)) {
      throw new ConfigError('SVC_RETENTION', expected, entry);
    }
    const ms = match[2] === 'off' ? null : Number(match[3]) * (AGE_UNITS_MS[match[4] ?? ''] ?? 0);
    if (ms !== null && (ms <= 0 || ms > MAX_AGE_MS)) {
      throw new ConfigError('SVC_RETENTION', 'ages from 1 minute to 3650 days, or off', entry);
    }
    ages[name] = ms;
  }
  return ages;
}
