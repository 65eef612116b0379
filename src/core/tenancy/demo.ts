import fs from 'node:fs';
import path from 'node:path';
import { DEV_ISSUER, DEV_OWNER_EMAIL, DEV_OWNER_SUB } from '../auth/dev-issuer.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemRead } from '../db/tenant-tx.ts';
import { createApiKey } from './api-keys.ts';
import { createProductKey } from './product-keys.ts';
import { createTenant, type TenantSetupStep } from './tenants.ts';
import { resolveHostedUser } from './users.ts';

/** The contract outside scripts read (ARCHITECTURE §9): keep these four names. */
export interface DevCredentials {
  tenantId: string;
  apiKey: string;
  productKey: string;
  userId: string;
}

export const DEV_CREDENTIALS_FILE = 'dev-credentials.json';

/**
 * First start in development on an empty database: a demo tenant with every module, its owner (the dev
 * issuer's `demo-owner`), an all-scopes API key and a product key, written to SVC_DATA_DIR.
 * Later starts return what the file holds.
 */
export async function ensureDemoTenant(
  db: Database,
  dataDir: string,
  setupSteps: readonly TenantSetupStep[],
  clock: Clock,
  progress: (message: string) => void = () => {},
): Promise<{ credentials: DevCredentials | undefined; created: boolean }> {
  const file = path.join(dataDir, DEV_CREDENTIALS_FILE);
  const { rows } = await systemRead<{ n: number }>(db, 'select count(*)::int as n from tenants');
  if ((rows[0]?.n ?? 0) > 0) {
    const credentials = fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DevCredentials)
      : undefined;
    return { credentials, created: false };
  }
  progress('creating the demo tenant, its owner and its keys (development, first start)');
  const owner = await resolveHostedUser(
    { db, clock },
    {
      provider: DEV_ISSUER,
      subject: DEV_OWNER_SUB,
      email: DEV_OWNER_EMAIL,
      emailVerified: true,
      name: 'Demo Owner',
    },
  );
  const tenant = await createTenant(
    { db, clock },
    { name: 'Demo', workspaceType: 'commerce', ownerUserId: owner.id },
    setupSteps,
  );
  const apiKey = await createApiKey(
    { db, tenantId: tenant.id, clock },
    { name: 'Demo key (all scopes)', scopes: ['*'], knownScopes: [], createdBy: owner.id, env: 'test' },
  );
  const productKey = await createProductKey({ db, tenantId: tenant.id, clock }, { name: 'Demo storefront' });
  const credentials: DevCredentials = {
    tenantId: tenant.id,
    apiKey: apiKey.key,
    productKey: productKey.key,
    userId: owner.id,
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return { credentials, created: true };
}
