import type { Config } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { WORKSPACE_TYPES, type WorkspaceType } from '../core/tenancy/roles.ts';
import { withMigratedDatabase } from './admin-database.ts';
import { parseFlags, UsageError } from './flags.ts';

export const TENANTS_CREATE_USAGE = `Usage: svc tenants create --name NAME --owner-email EMAIL [--workspace-type TYPE] [--json]

Creates a tenant with every default module switched on. EMAIL becomes its owner when that address first
signs in to the console through the hosted auth provider with its email verified. Then make an API key:
svc api-keys create --tenant <the printed id> --scopes ...
  --workspace-type  ${WORKSPACE_TYPES.join(', ')} (default commerce)
  --json            print the tenant as JSON`;

// The shape an address must have; whether it receives mail is the identity provider's business.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Reads the flags at once (a mistake throws UsageError); the returned function does the work. */
export function tenantsCreate(argv: readonly string[]): (config: Config) => Promise<number> {
  const flags = parseFlags(argv, {
    name: 'value',
    'owner-email': 'value',
    'workspace-type': 'value',
    json: 'switch',
  });
  const name = flags.required('name').trim();
  if (name.length > 200) throw new UsageError('--name takes at most 200 characters');
  const ownerEmail = flags.required('owner-email').trim().toLowerCase();
  if (!EMAIL.test(ownerEmail) || ownerEmail.length > 320)
    throw new UsageError(`--owner-email '${ownerEmail}' is not an email address`);
  const workspaceType = flags.value('workspace-type') ?? 'commerce';
  if (!isWorkspaceType(workspaceType))
    throw new UsageError(`--workspace-type must be one of ${WORKSPACE_TYPES.join(', ')}`);
  return (config) => create(config, { name, ownerEmail, workspaceType, json: flags.switch('json') });
}

async function create(
  config: Config,
  {
    name,
    ownerEmail,
    workspaceType,
    json,
  }: { name: string; ownerEmail: string; workspaceType: WorkspaceType; json: boolean },
): Promise<number> {
  const [{ tenantSetup }, { createTenant }] = await Promise.all([
    import('../app.ts'),
    import('../core/tenancy/tenants.ts'),
  ]);
  const tenant = await withMigratedDatabase(
    config,
    (db) => createTenant({ db, clock: systemClock }, { name, workspaceType, ownerEmail }, tenantSetup()),
    (message) => process.stderr.write(`svc: ${message}\n`),
  );
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...tenant, ownerEmail, ownerStatus: 'invited' })}\n`);
    return 0;
  }
  process.stdout.write(
    [
      `Tenant created: ${tenant.id}`,
      `  name            ${tenant.name}`,
      `  workspace type  ${tenant.workspaceType}`,
      `  owner           ${ownerEmail} (invited: owner at their first console sign-in with this verified email)`,
      '',
      'Next, an API key for your servers:',
      `  npx svc api-keys create --tenant ${tenant.id} --scopes '*'`,
      '',
    ].join('\n'),
  );
  return 0;
}

function isWorkspaceType(value: string): value is WorkspaceType {
  return (WORKSPACE_TYPES as readonly string[]).includes(value);
}
