import type { FastifyBaseLogger } from 'fastify';
import { traceFrom } from '../../core/http/request-id.ts';
import { newId } from '../../core/ids.ts';
import { type CallParts, type ServiceContext, type Services, serviceContext } from '../../core/services.ts';

/**
 * The verb context of work the gateway does for a tenant: a frame of a connection (its principal) or the
 * gateway's own (no principal), each with a fresh request id and trace.
 */
export function realtimeContext(
  services: Services,
  log: FastifyBaseLogger,
  tenantId: string,
  principal: CallParts['principal'],
): ServiceContext {
  return serviceContext(services, {
    log,
    tenantId,
    principal,
    requestId: newId('request', services.clock.now()),
    trace: traceFrom(undefined),
    origin: 'realtime',
  });
}
