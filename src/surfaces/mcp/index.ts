import type { FastifyInstance } from 'fastify';
import type { Services } from '../../core/context.ts';
import { mcpDiscoveryRoutes } from './discovery.ts';
import { mcpPolicyRoutes } from './policy-routes.ts';
import { mcpTransportRoutes } from './transport.ts';

/** The MCP private preview: `POST /mcp`, its public discovery documents and the console policy. */
export async function mcpSurface(app: FastifyInstance, services: Services) {
  await app.register(mcpTransportRoutes, services);
  await app.register(mcpDiscoveryRoutes, services);
  await app.register(mcpPolicyRoutes, services);
}
