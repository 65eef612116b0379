/**
 * `--name value`, `--name=value` and boolean `--json`, for the admin commands. A mistake is a UsageError:
 * the CLI prints it with the command's usage and exits 2, before anything is opened or written.
 */
export class UsageError extends Error {}

export type FlagSpec = Readonly<Record<string, 'value' | 'switch'>>;

export interface ParsedFlags {
  value(name: string): string | undefined;
  required(name: string): string;
  switch(name: string): boolean;
}

export function parseFlags(argv: readonly string[], spec: FlagSpec): ParsedFlags {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const known = Object.keys(spec).map((name) => `--${name}`);
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}'`);
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined)
      throw new UsageError(`unknown option --${name}; the options are ${known.join(', ')}`);
    if (values.has(name) || switches.has(name)) throw new UsageError(`--${name} is given twice`);
    if (kind === 'switch') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      switches.add(name);
      continue;
    }
    let value: string | undefined;
    if (equals !== -1) value = arg.slice(equals + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      i += 1;
    }
    if (value.trim() === '') throw new UsageError(`--${name} needs a value`);
    values.set(name, value);
  }
  return {
    value: (name) => values.get(name),
    required(name) {
      const value = values.get(name);
      if (value === undefined) throw new UsageError(`--${name} is required`);
      return value;
    },
    switch: (name) => switches.has(name),
  };
}
