/** Reading environment variables: each as a value of its type, or a ConfigError saying what was expected. */

export class ConfigError extends Error {
  /** `received` is quoted in the message; for a secret pass `{ secret: true }` and a description instead. */
  constructor(
    readonly variable: string,
    expected: string,
    received: string,
    options: { secret?: boolean } = {},
  ) {
    super(
      `${variable}: expected ${expected}, got ${options.secret === true ? received : JSON.stringify(received)}`,
    );
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

export function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `a whole number from ${min} to ${max}`, raw);
  }
  return value;
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `one of ${allowed.join(', ')}`, raw);
  }
  return raw as T;
}

export function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(', ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `a URL with scheme ${protocols.join(' or ')}`, raw);
  }
  return raw;
}

export function msList(env: Env, name: string, fallback: number[]): number[] {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => !/^\d+$/.test(part)) || values.length === 0 || values.length > 20) {
    throw new ConfigError(name, 'a comma-separated list of 1 to 20 whole milliseconds', raw);
  }
  return values;
}
