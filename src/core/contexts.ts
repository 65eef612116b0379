import type { Clock } from './clock.ts';
import type { Database } from './db/database.ts';

/** Where a call came from: recorded in every event's trace. */
export type Origin = 'api' | 'console' | 'realtime' | 'mcp' | 'system';

/** What core's verbs outside any tenant (creating a tenant, resolving a console user) need. */
export interface SystemContext {
  db: Database;
  clock: Clock;
}

/** What core's tenant-scoped verbs (keys, team) need of a context: a `ServiceContext` fits as it is. */
export interface TenantContext extends SystemContext {
  tenantId: string;
}
