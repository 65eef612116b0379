import type { Config } from '../config.ts';
import { API_KEYS_CREATE_USAGE, apiKeysCreate } from './api-keys-create.ts';
import { UsageError } from './flags.ts';
import { TENANTS_CREATE_USAGE, tenantsCreate } from './tenants-create.ts';

type Work = (config: Config) => Promise<number>;

/** `svc tenants create ...` and `svc api-keys create ...`: each reads its flags, then does its work. */
const ADMIN_COMMANDS: Record<string, { usage: string; parse: (argv: readonly string[]) => Work }> = {
  'tenants create': { usage: TENANTS_CREATE_USAGE, parse: tenantsCreate },
  'api-keys create': { usage: API_KEYS_CREATE_USAGE, parse: apiKeysCreate },
};

/**
 * An admin command's flags, read before the configuration and the service's modules load, so a mistake
 * (or `--help`) is answered at once: a number is the exit status, said already; a function does the work.
 */
export function adminCommand(argv: readonly string[]): number | Work {
  const [group = '', verb = ''] = argv;
  const name = `${group} ${verb}`;
  const command = Object.hasOwn(ADMIN_COMMANDS, name) ? ADMIN_COMMANDS[name] : undefined;
  if (command === undefined) {
    const verbs = Object.keys(ADMIN_COMMANDS).filter((known) => known.startsWith(`${group} `));
    process.stderr.write(
      `svc: unknown command '${name.trim()}'; try ${verbs.map((known) => `'svc ${known}'`).join(' or ')}\n`,
    );
    return 2;
  }
  const usageError = (error: unknown): number => {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`svc ${name}: ${error.message}\n\n${command.usage}\n`);
    return 2;
  };
  const rest = argv.slice(2);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    const work = command.parse(rest);
    return (config) => work(config).catch(usageError);
  } catch (error) {
    return usageError(error);
  }
}
