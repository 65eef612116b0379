import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { oneOf } from '../../core/http/schemas.ts';
import { consoleCaller } from '../console/guard.ts';
import { consoleRoute, TenantParams } from '../console/route-options.ts';
import { CONFIRM_POLICIES, readPolicy, writePolicy } from './policy.ts';

const ConfirmSchema = oneOf(CONFIRM_POLICIES, {
  description:
    'Which MCP tools need a human before they run: required_only (tools hinted always), destructive ' +
    '(default: also destructive tools), writes (also every tool that changes data), all (every tool)',
});
const McpPolicy = Type.Object(
  {
    confirm: ConfirmSchema,
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'null while the tenant runs on the default',
    }),
  },
  { title: 'McpPolicy', description: "The tenant's human-confirmation policy for MCP tools" },
);
const PutMcpPolicy = Type.Object(
  { confirm: ConfirmSchema },
  {
    title: 'SetMcpPolicyInput',
    description: 'Which MCP tools need a human before they run',
    additionalProperties: false,
  },
);

/** Console: the tenant's human-confirmation policy for MCP tools. */
export async function mcpPolicyRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  // The console membership guard is installed app-wide (src/app.ts): minRole below is enforced.
  typed.get(
    '/api/console/tenants/:tenantId/mcp-policy',
    consoleRoute('viewer', {
      operationId: 'getTenantMcpPolicy',
      summary: "The tenant's human-confirmation policy for MCP tools",
      params: TenantParams,
      response: { 200: McpPolicy },
    }),
    async (request) => readPolicy(services.db, consoleCaller(request).tenantId),
  );

  typed.put(
    '/api/console/tenants/:tenantId/mcp-policy',
    consoleRoute('admin', {
      operationId: 'setTenantMcpPolicy',
      summary: 'Set which MCP tools need a human before they run',
      params: TenantParams,
      body: PutMcpPolicy,
      response: { 200: McpPolicy },
    }),
    async (request) => {
      const body = request.body;
      const { tenantId } = consoleCaller(request);
      return writePolicy(services.db, tenantId, body.confirm, services.clock.now());
    },
  );
}
