import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Services, serviceContext } from '../../core/context.ts';
import { systemRead } from '../../core/db/tenant-tx.ts';
import { AppError, InvalidRequest, NotFound } from '../../core/http/errors.ts';
import { jsonProblem } from '../../core/http/json-safety.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { BuildCallbackBody, BuildParams, MobileBuild } from './build-schema.ts';
import { callbackSecret } from './github-dispatch.ts';
import { isId } from './ids.ts';
import { completeMobileBuild } from './verbs/complete-mobile-build.ts';

export const SIGNATURE_HEADER = 'x-svc-signature';

/** `sha256=<hex>` of the exact body, keyed with the build's callback secret (constant-time check). */
export function signatureValid(secret: string, rawBody: string, header: unknown): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function buildTenant(services: Services, buildId: string): Promise<string | undefined> {
  if (!isId('mobileBuild', buildId)) return undefined;
  const { rows } = await systemRead<{ tenant_id: string }>(
    services.db,
    'select tenant_id from mobile_builds where id = $1',
    [buildId],
  );
  return rows[0]?.tenant_id;
}

/**
 * `POST /api/public/mobile-builds/:buildId/callback`: the CI reports a build's end, signed with the secret
 * the dispatch's client_payload carried (`X-SVC-Signature: sha256=<hex HMAC of the body>`). Registered in
 * a scope of its own whose JSON parser keeps the exact body bytes the signature covers.
 */
export async function buildCallbackRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const rawBodies = new WeakMap<FastifyRequest, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(new InvalidRequest('the body is not valid JSON'), undefined);
    }
    const problem = jsonProblem(value, '/body');
    if (problem !== undefined) {
      return done(
        new InvalidRequest(`invalid request: ${problem.field} ${problem.message}`, [problem]),
        undefined,
      );
    }
    rawBodies.set(request, text);
    done(null, value);
  });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/api/public/mobile-builds/:buildId/callback',
    {
      schema: {
        tags: ['storefront'],
        operationId: 'completeMobileBuild',
        summary: "The build service reports a mobile build's end (signed with the build's callback secret)",
        params: BuildParams,
        body: BuildCallbackBody,
        response: {
          200: MobileBuild,
          401: errorRef('X-SVC-Signature is missing or does not match the body (invalid_token).'),
          409: errorRef('The build already succeeded.'),
        },
      },
    },
    async (request) => {
      const { buildId } = request.params;
      const token = services.config.mobileBuild.dispatchToken;
      const tenantId = await buildTenant(services, buildId);
      if (tenantId === undefined || token === undefined) throw new NotFound('mobile build', buildId);
      const raw = rawBodies.get(request) ?? '';
      if (!signatureValid(callbackSecret(token, buildId), raw, request.headers[SIGNATURE_HEADER])) {
        throw new AppError(
          'invalid_token',
          'X-SVC-Signature must be sha256=<hex HMAC-SHA256 of the exact body, keyed with client_payload.callback.secret>',
        );
      }
      const ctx = serviceContext(services, {
        log: request.log,
        tenantId,
        principal: undefined,
        requestId: request.id,
        trace: request.trace,
        origin: 'api',
      });
      return completeMobileBuild(ctx, { ...request.body, buildId });
    },
  );
}
