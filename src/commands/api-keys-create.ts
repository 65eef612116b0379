import type { Config } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { withMigratedDatabase } from './admin-database.ts';
import { parseFlags, UsageError } from './flags.ts';

export const API_KEYS_CREATE_USAGE = `Usage: svc api-keys create --tenant TENANT_ID --scopes SCOPE[,SCOPE...] [--name NAME]
                          [--expires-at ISO-8601] [--json]

Creates an API key for a tenant's servers and prints its secret once (only its hash is stored).
  --scopes      comma-separated; '*' is every scope (see docs/authentication.md)
  --name        what the key is for, shown in the console (default "Created with svc api-keys create")
  --expires-at  when it stops working (default never)
  --json        print the key as JSON`;

/** Every scope a key may carry: the service's modules' and the platform's. */
async function knownScopes(): Promise<readonly string[]> {
  const [{ MODULES }, { ModuleRegistry }] = await Promise.all([
    import('../app.ts'),
    import('../core/modules/registry.ts'),
  ]);
  return new ModuleRegistry(MODULES).knownScopes;
}

interface KeyRequest {
  tenantId: string;
  scopes: string[];
  name: string;
  expiresAt: string | undefined;
  json: boolean;
}

/**
 * Reads the flags at once (a mistake throws UsageError); the returned function checks the scopes against
 * the service's modules and does the work.
 */
export function apiKeysCreate(argv: readonly string[]): (config: Config) => Promise<number> {
  const flags = parseFlags(argv, {
    tenant: 'value',
    scopes: 'value',
    name: 'value',
    'expires-at': 'value',
    json: 'switch',
  });
  const tenantId = flags.required('tenant').trim();
  const scopes = flags
    .required('scopes')
    .split(',')
    .map((scope) => scope.trim())
    .filter((scope) => scope !== '');
  if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope');
  const name = (flags.value('name') ?? 'Created with svc api-keys create').trim();
  if (name.length > 200) throw new UsageError('--name takes at most 200 characters');
  const expiresAt = flags.value('expires-at');
  if (expiresAt !== undefined) {
    const at = Date.parse(expiresAt);
    if (Number.isNaN(at)) throw new UsageError(`--expires-at '${expiresAt}' is not an ISO 8601 date-time`);
    if (at <= systemClock.now()) throw new UsageError('--expires-at must be in the future');
  }
  return (config) => create(config, { tenantId, scopes, name, expiresAt, json: flags.switch('json') });
}

async function create(config: Config, request: KeyRequest): Promise<number> {
  const { tenantId, scopes, name, expiresAt } = request;
  const known = await knownScopes();
  const unknown = scopes.filter((scope) => !known.includes(scope));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown scope${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} in --scopes; known scopes: ${known.join(', ')}`,
    );
  const [{ createApiKey }, { getTenant }] = await Promise.all([
    import('../core/tenancy/api-keys.ts'),
    import('../core/tenancy/tenants.ts'),
  ]);

  const created = await withMigratedDatabase(
    config,
    async (db) => {
      const tenant = await getTenant(db, tenantId);
      if (tenant === undefined)
        throw new Error(`no tenant ${tenantId} (--tenant); 'svc tenants create' makes one`);
      const key = await createApiKey(
        { db, tenantId, clock: systemClock },
        { name, scopes, knownScopes: known, ...(expiresAt === undefined ? {} : { expiresAt }) },
      );
      return { tenant, key };
    },
    (message) => process.stderr.write(`svc: ${message}\n`),
  );
  const { tenant, key } = created;
  if (request.json) {
    process.stdout.write(`${JSON.stringify({ tenantId, ...key })}\n`);
    return 0;
  }
  process.stdout.write(
    [
      `API key created for tenant ${tenant.id} (${tenant.name})`,
      `  id       ${key.id}`,
      `  name     ${key.name}`,
      `  scopes   ${key.scopes.join(', ')}`,
      `  expires  ${key.expiresAt ?? 'never'}`,
      '',
      'The secret, shown this once (only its hash is kept; revoke the key and make another if it is lost):',
      `  ${key.key}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${key.key}" ${config.publicUrl}/v1/me`,
      '',
    ].join('\n'),
  );
  return 0;
}
