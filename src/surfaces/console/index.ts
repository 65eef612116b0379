import type { FastifyInstance } from 'fastify';
import type { Identity } from '../../core/auth/identity.ts';
import type { Services } from '../../core/context.ts';
import type { TenantSetupStep } from '../../core/tenancy/tenants.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { eventCountRoutes } from './event-counts.ts';
import { consoleEventRoutes } from './events.ts';
import { moduleSettingsRoutes } from './modules.ts';
import { productKeyRoutes } from './product-keys.ts';
import { scopeRoutes } from './scopes.ts';
import { teamRoutes } from './team.ts';
import { tenantRoutes } from './tenants.ts';

export interface ConsoleDeps extends Services {
  identity: Identity;
  setupSteps: readonly TenantSetupStep[];
}

/** /api/console/*: hosted-auth JWT only; tenant routes pass the membership guard (installed in app.ts) first. */
export async function consoleSurface(app: FastifyInstance, deps: ConsoleDeps) {
  await app.register(tenantRoutes, deps);
  await app.register(apiKeyRoutes, deps);
  await app.register(teamRoutes, deps);
  await app.register(productKeyRoutes, deps);
  await app.register(moduleSettingsRoutes, deps);
  await app.register(consoleEventRoutes, deps);
  await app.register(eventCountRoutes, deps);
  await app.register(scopeRoutes, deps);
}
