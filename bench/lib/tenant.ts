import { tenantSetup } from '../../src/app.ts';
import { DEV_ISSUER } from '../../src/core/auth/dev-issuer.ts';
import { systemClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/core/db/database.ts';
import { createApiKey } from '../../src/core/tenancy/api-keys.ts';
import { createTenant } from '../../src/core/tenancy/tenants.ts';
import { resolveHostedUser } from '../../src/core/tenancy/users.ts';

/** A fresh tenant with every module enabled and an all-scopes API key, made through the real verbs. */
export async function createBenchTenant(db: Database): Promise<{ tenantId: string; apiKey: string }> {
  const system = { db, clock: systemClock };
  const owner = await resolveHostedUser(system, {
    provider: DEV_ISSUER,
    subject: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}`,
    email: undefined,
    emailVerified: false,
    name: undefined,
  });
  const tenant = await createTenant(
    system,
    { name: 'bench', workspaceType: 'sandbox', ownerUserId: owner.id },
    tenantSetup(),
  );
  const { key } = await createApiKey(
    { db, tenantId: tenant.id, clock: systemClock },
    { name: 'bench', scopes: ['*'], knownScopes: [] },
  );
  return { tenantId: tenant.id, apiKey: key };
}
