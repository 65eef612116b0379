import type { FastifyRequest } from 'fastify';
import { type Origin, type ServiceContext, type Services, serviceContext } from '../context.ts';
import { AppError } from './errors.ts';

/** The verb context for a request; its tenant comes from the verified principal, never from input. */
export function requestContext(
  request: FastifyRequest,
  services: Services,
  origin: Origin = 'api',
): ServiceContext {
  const tenantId = request.principal?.tenantId;
  if (tenantId === undefined) throw new AppError('unauthorized', 'this route needs a tenant credential');
  return serviceContext(services, {
    log: request.log,
    tenantId,
    principal: request.principal,
    requestId: request.id,
    trace: request.trace,
    origin,
  });
}
