import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { WORKSPACE_TYPES } from '../../core/tenancy/roles.ts';
import { isToolable, manifestEntryOf } from './catalog.ts';
import { protocolVersions, SERVER_DESCRIPTION, SERVER_INFO } from './info.ts';
import { CONFIRM_POLICIES, DEFAULT_CONFIRM_POLICY } from './policy.ts';

const Schema = Type.Object({}, { additionalProperties: true });

const DiscoveryDocument = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    version: Type.String(),
    description: Type.String(),
    status: Type.Literal('private_preview'),
    endpoint: Type.String({ description: 'The MCP endpoint: POST JSON-RPC 2.0 here' }),
    transport: Type.Literal('streamable-http'),
    stateless: Type.Boolean(),
    protocolVersions: Type.Array(Type.String()),
    authentication: Type.Object({
      scheme: Type.Literal('bearer'),
      credentials: Type.Array(Type.String(), { description: 'api_key, session_token' }),
      header: Type.String(),
    }),
    capabilities: Type.Object({ tools: Type.Object({ listChanged: Type.Boolean() }) }),
    manifest: Type.String({ description: 'URL of the tool manifest' }),
    documentation: Type.String(),
  },
  {
    title: 'McpDiscovery',
    description: 'How to reach and authenticate to the MCP server (/.well-known/mcp)',
  },
);

const ManifestTool = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    module: Type.String(),
    description: Type.String(),
    access: Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('destructive')]),
    confirmation: Type.Union([Type.Literal('never'), Type.Literal('destructive'), Type.Literal('always')]),
    scope: Type.String(),
    workspaceTypes: Type.Array(Type.String()),
    inputSchema: Schema,
    outputSchema: Type.Optional(Schema),
    annotations: Type.Object({}, { additionalProperties: true }),
  },
  {
    title: 'McpManifestTool',
    description: 'One MCP tool (a module action) as any tenant could be served it',
  },
);

const ManifestDocument = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    workspaceTypes: Type.Array(Type.String()),
    confirmationPolicies: Type.Array(Type.String()),
    defaultConfirmationPolicy: Type.String(),
    tools: Type.Array(ManifestTool),
  },
  {
    title: 'McpManifest',
    description: 'Every MCP tool the service offers, with its access and confirmation',
  },
);

/** Public discovery documents, generated from the registry: what any tenant could be served. */
export async function mcpDiscoveryRoutes(app: FastifyInstance, services: Services) {
  const base = services.config.publicUrl;

  app.get(
    '/.well-known/mcp',
    {
      schema: {
        operationId: 'getMcpDiscovery',
        summary: 'How to reach and authenticate to the MCP server',
        tags: ['mcp'],
        response: { 200: DiscoveryDocument },
      },
    },
    async () => ({
      ...SERVER_INFO,
      description: SERVER_DESCRIPTION,
      status: 'private_preview' as const,
      endpoint: `${base}/mcp`,
      transport: 'streamable-http' as const,
      stateless: true,
      protocolVersions: await protocolVersions(),
      authentication: {
        scheme: 'bearer' as const,
        credentials: ['api_key', 'session_token'],
        header: 'Authorization: Bearer <API_KEY or SESSION_TOKEN>',
      },
      capabilities: { tools: { listChanged: false } },
      manifest: `${base}/.well-known/mcp/manifest.json`,
      documentation: `${base}/docs`,
    }),
  );

  app.get(
    '/.well-known/mcp/manifest.json',
    {
      schema: {
        operationId: 'getMcpManifest',
        summary: 'Every MCP tool of every module, with access level, confirmation hint and workspace types',
        tags: ['mcp'],
        response: { 200: ManifestDocument },
      },
    },
    async () => ({
      name: SERVER_INFO.name,
      version: SERVER_INFO.version,
      workspaceTypes: [...WORKSPACE_TYPES],
      confirmationPolicies: [...CONFIRM_POLICIES],
      defaultConfirmationPolicy: DEFAULT_CONFIRM_POLICY,
      tools: services.registry
        .allActions()
        .filter(({ action }) => isToolable(action))
        .map(({ module, action }) => manifestEntryOf(module, action)),
    }),
  );
}
