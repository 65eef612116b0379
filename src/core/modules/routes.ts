import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { authenticated } from '../auth/principal.ts';
import type { Services } from '../context.ts';
import { requestContext } from '../http/context.ts';
import { NotFound } from '../http/errors.ts';
import { Page, PageQuery, pageOfList } from '../http/pagination.ts';
import { actionRefusal, audienceFor, roomOfCall } from './access.ts';
import { validated } from './validate.ts';

const CatalogEntry = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    description: Type.String(),
    version: Type.String(),
    eventTypes: Type.Array(Type.String()),
    scopes: Type.Array(Type.String()),
    actions: Type.Array(Type.String(), {
      description: 'Names of the actions (and MCP tools) the module offers',
    }),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Only with a credential: whether the tenant has it on' }),
    ),
    config: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: true, description: "Only with a credential: the tenant's configuration" },
      ),
    ),
  },
  {
    title: 'CatalogModule',
    description: "A module of the service: what it offers, and with a credential the tenant's settings",
  },
);
const CatalogPage = Page(
  CatalogEntry,
  'CatalogModulePage',
  'A page of the module catalog, in registration order',
);

const ActionInfo = Type.Object(
  {
    name: Type.String(),
    title: Type.String(),
    description: Type.String(),
    module: Type.String(),
    access: Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('destructive')]),
    confirmation: Type.Union([Type.Literal('never'), Type.Literal('destructive'), Type.Literal('always')]),
    scope: Type.String(),
    workspaceTypes: Type.Array(Type.String()),
    inputSchema: Type.Object({}, { additionalProperties: true }),
    outputSchema: Type.Object({}, { additionalProperties: true }),
  },
  {
    title: 'ActionInfo',
    description: 'A module action (and MCP tool) with its access, scope and JSON schemas',
  },
);
const ActionPage = Page(ActionInfo, 'ActionInfoPage', 'A page of the actions this credential may call now');

const CallActionInput = Type.Object(
  { arguments: Type.Optional(Type.Object({}, { additionalProperties: true })) },
  {
    title: 'CallActionInput',
    description: "The action's arguments, validated against its inputSchema",
    additionalProperties: false,
  },
);
const ActionResult = Type.Object(
  { action: Type.String(), result: Type.Unknown() },
  { title: 'ActionResult', description: "What the action answered: its REST route's answer" },
);

const runtimeCredentials = ['api_key', 'session'] as const;

export async function moduleRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { registry, enablement } = services;

  typed.get(
    '/v1/modules/catalog',
    {
      config: { auth: { credentials: runtimeCredentials, optional: true } },
      schema: {
        operationId: 'getModuleCatalog',
        summary: 'Every module: public metadata, plus enablement and configuration with a credential',
        tags: ['modules'],
        querystring: PageQuery,
        response: { 200: CatalogPage },
      },
    },
    async (request) => {
      const tenantId = request.principal?.tenantId;
      const states = tenantId === undefined ? undefined : await enablement.states(tenantId);
      return pageOfList(
        registry.modules.map((m) => {
          const state = states?.get(m.name);
          const config = validated<Record<string, unknown>>(m.configSchema, state?.config ?? {}, 'config');
          return {
            name: m.name,
            title: m.title,
            description: m.description,
            version: m.version,
            eventTypes: [...m.eventTypes],
            scopes: [...m.scopes],
            actions: m.actions.map((a) => a.name),
            ...(states === undefined ? {} : { enabled: state?.enabled === true, config }),
          };
        }),
        request.query,
      );
    },
  );

  typed.get(
    '/v1/actions',
    {
      config: { auth: { credentials: runtimeCredentials } },
      schema: {
        operationId: 'listActions',
        summary: 'The actions this credential may call now',
        tags: ['modules'],
        querystring: PageQuery,
        response: { 200: ActionPage },
      },
    },
    async (request) => {
      const audience = await audienceFor(services, authenticated(request.principal));
      const data = registry
        .allActions()
        .filter(({ module, action }) => actionRefusal(module, action, audience) === undefined)
        .map(({ module, action }) => ({
          name: action.name,
          title: action.title,
          description: action.description,
          module: module.name,
          access: action.access,
          confirmation: action.confirmation,
          scope: action.scope,
          workspaceTypes: [...action.workspaceTypes],
          inputSchema: action.input,
          outputSchema: action.output,
        }));
      return pageOfList(data, request.query);
    },
  );

  typed.post(
    '/v1/actions/:name',
    {
      config: { auth: { credentials: runtimeCredentials } },
      schema: {
        operationId: 'callAction',
        summary: 'Call a module action with the same checks and events as its REST route',
        tags: ['modules'],
        params: Type.Object({ name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }) }),
        body: CallActionInput,
        response: { 200: ActionResult },
      },
    },
    async (request) => {
      const { name } = request.params;
      const entry = registry.action(name);
      if (entry === undefined) throw new NotFound('action', name);
      const audience = await audienceFor(services, authenticated(request.principal));
      const refusal = actionRefusal(entry.module, entry.action, audience);
      if (refusal !== undefined) throw refusal;
      const input = validated(entry.action.input, request.body.arguments ?? {}, 'body/arguments');
      const roomRefusal = actionRefusal(
        entry.module,
        entry.action,
        audience,
        roomOfCall(registry, entry.action, input),
      );
      if (roomRefusal !== undefined) throw roomRefusal;
      const result = await entry.action.run(requestContext(request, services), input);
      return { action: name, result };
    },
  );
}
