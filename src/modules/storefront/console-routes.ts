import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hostedUser } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { PageQuery, pageOfList } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { listProductKeys } from '../../core/tenancy/product-keys.ts';
import type { Role } from '../../core/tenancy/roles.ts';
import {
  consoleCreateRoute,
  consoleListRoute,
  consoleRoute,
  TenantParams,
} from '../../surfaces/console/route-options.ts';
import { ProductKeyPage, ProductKeySchema } from '../../surfaces/console/schemas.ts';
import { MobileBuildAnswer, MobileBuildBody, MobileBuildPage } from './build-schema.ts';
import { operatorTenant } from './lookups/operator-tenant.ts';
import {
  CreateOperatorBody,
  Operator,
  OperatorKeyBody,
  OperatorPage,
  OperatorParams,
  OperatorStorefront,
  OperatorStorefrontBody,
  Storefront,
  StorefrontBody,
  TenantOperatorParams,
  UpdateOperatorBody,
} from './schema.ts';
import { createOperator } from './verbs/create-operator.ts';
import { createOperatorKey } from './verbs/create-operator-key.ts';
import { deleteOperator } from './verbs/delete-operator.ts';
import { getOperator } from './verbs/get-operator.ts';
import { getOperatorStorefront } from './verbs/get-operator-storefront.ts';
import { getStorefront } from './verbs/get-storefront.ts';
import { listMobileBuilds } from './verbs/list-mobile-builds.ts';
import { listOperators } from './verbs/list-operators.ts';
import { putOperatorStorefront } from './verbs/put-operator-storefront.ts';
import { putStorefront } from './verbs/put-storefront.ts';
import { requestMobileBuild } from './verbs/request-mobile-build.ts';
import { updateOperator } from './verbs/update-operator.ts';

const Deleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'DeletedOperator', description: 'The operator, its builds and its product keys are deleted' },
);

/**
 * The console's storefront routes: the tenant's storefront and operators under
 * `/api/console/tenants/:tenantId`, and the routes addressed by an operator alone under
 * `/api/console/operators/:operatorId` (the console guard resolves its tenant and checks membership: a
 * stranger gets 404, a member below the route's role 403 `forbidden`).
 */
export async function storefrontConsoleRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const ctx = (request: FastifyRequest) => requestContext(request, services, 'console');
  const byTenant = consoleRoute;
  const tenantOf = {
    param: 'operatorId',
    resource: 'operator',
    resolve: (id: string) => operatorTenant(services.db, id),
  };
  /** A route addressed by the operator alone (`/api/console/operators/:operatorId`). */
  const byOperator = <S extends object>(minRole: Role, schema: S) =>
    consoleRoute(minRole, { params: OperatorParams, ...schema }, tenantOf);
  /** A route on one operator under its tenant (`/api/console/tenants/:tenantId/operators/:operatorId`). */
  const onOperator = <S extends object>(minRole: Role, schema: S) =>
    consoleRoute(minRole, { params: TenantOperatorParams, ...schema });
  const tenants = '/api/console/tenants/:tenantId';
  const operators = '/api/console/operators/:operatorId';

  typed.get(
    `${tenants}/storefront`,
    byTenant('viewer', {
      operationId: 'getStorefront',
      summary: "The tenant's storefront configuration (brand, allowed origins, listing, locale, currency)",
      params: TenantParams,
      response: { 200: Storefront },
    }),
    async (request) => getStorefront(ctx(request)),
  );
  typed.put(
    `${tenants}/storefront`,
    byTenant('admin', {
      operationId: 'putStorefront',
      summary: "Replace the tenant's storefront configuration (public answers show it within a second)",
      params: TenantParams,
      body: StorefrontBody,
      response: { 200: Storefront },
    }),
    async (request) => putStorefront(ctx(request), request.body),
  );

  typed.post(
    `${tenants}/operators`,
    consoleCreateRoute(
      'admin',
      {
        operationId: 'createOperator',
        summary: 'Create an operator (op_...): a business the tenant runs a white-label app for',
      },
      CreateOperatorBody,
      Operator,
      { 409: errorRef('The slug is taken by another operator of the tenant.') },
    ),
    async (request, reply) => {
      reply.status(201);
      return createOperator(ctx(request), request.body);
    },
  );
  typed.get(
    `${tenants}/operators`,
    consoleListRoute('listOperators', "The tenant's operators, newest first", OperatorPage),
    async (request) => listOperators(ctx(request), request.query),
  );
  typed.get(
    `${tenants}/operators/:operatorId`,
    onOperator('viewer', {
      operationId: 'getOperator',
      summary: 'One operator',
      response: { 200: Operator },
    }),
    async (request) => getOperator(ctx(request), { operatorId: request.params.operatorId }),
  );
  typed.patch(
    `${tenants}/operators/:operatorId`,
    onOperator('admin', {
      operationId: 'updateOperator',
      summary: "Change an operator's name, slug, brand overrides, app identifiers or listing",
      body: UpdateOperatorBody,
      response: { 200: Operator, 409: errorRef('The slug is taken by another operator of the tenant.') },
    }),
    async (request) =>
      updateOperator(ctx(request), { ...request.body, operatorId: request.params.operatorId }),
  );
  typed.delete(
    `${tenants}/operators/:operatorId`,
    onOperator('admin', {
      operationId: 'deleteOperator',
      summary: 'Delete an operator, its builds and its product keys (refused everywhere within a second)',
      response: { 200: Deleted },
    }),
    async (request) => deleteOperator(ctx(request), { operatorId: request.params.operatorId }),
  );

  typed.get(
    `${operators}/storefront`,
    byOperator('viewer', {
      operationId: 'getOperatorStorefront',
      summary: "The operator's brand overrides and listing, and the brand its storefront shows",
      response: { 200: OperatorStorefront },
    }),
    async (request) => getOperatorStorefront(ctx(request), request.params),
  );
  typed.put(
    `${operators}/storefront`,
    byOperator('admin', {
      operationId: 'putOperatorStorefront',
      summary: "Set the operator's brand overrides (field by field over the tenant's) and listing",
      body: OperatorStorefrontBody,
      response: { 200: OperatorStorefront },
    }),
    async (request) => putOperatorStorefront(ctx(request), { ...request.body, ...request.params }),
  );
  typed.post(
    `${operators}/product-keys`,
    byOperator('developer', {
      operationId: 'createOperatorProductKey',
      summary: 'Create a product key that speaks for the operator (its brand and listing on /api/public)',
      body: OperatorKeyBody,
      response: { 201: ProductKeySchema },
    }),
    async (request, reply) => {
      reply.status(201);
      return createOperatorKey(ctx(request), { ...request.body, ...request.params });
    },
  );
  typed.get(
    `${operators}/product-keys`,
    byOperator('viewer', {
      operationId: 'listOperatorProductKeys',
      summary: "The operator's product keys",
      querystring: PageQuery,
      response: { 200: ProductKeyPage },
    }),
    async (request) => pageOfList(await listProductKeys(ctx(request), request.params), request.query),
  );
  typed.post(
    `${operators}/mobile-build`,
    byOperator('admin', {
      operationId: 'requestMobileBuild',
      summary: "Queue a white-label build of the operator's app (GitHub repository dispatch)",
      description:
        'Without SVC_MOBILE_BUILD_DISPATCH_TOKEN the server is in development mode: it answers 200 ' +
        '`{queued: false, devMode: true, build}` and sends nothing. With it, it sends GitHub a repository ' +
        'dispatch (`mobile-build`) and answers 202 `{queued: true, devMode: false, build}`.',
      body: MobileBuildBody,
      response: {
        200: MobileBuildAnswer,
        202: MobileBuildAnswer,
        502: errorRef('GitHub refused the dispatch (token, permission, repository) or did not answer.'),
        503: errorRef('GitHub rate limits the dispatch token; see Retry-After.'),
      },
    }),
    async (request, reply) => {
      const answer = await requestMobileBuild(ctx(request), {
        ...request.body,
        ...request.params,
        requestedBy: hostedUser(request.principal).userId,
      });
      reply.status(answer.queued ? 202 : 200);
      return answer;
    },
  );
  typed.get(
    `${operators}/mobile-builds`,
    byOperator('viewer', {
      operationId: 'listMobileBuilds',
      summary: "The operator's mobile builds, newest first",
      querystring: PageQuery,
      response: { 200: MobileBuildPage },
    }),
    async (request) => listMobileBuilds(ctx(request), { ...request.query, ...request.params }),
  );
}
