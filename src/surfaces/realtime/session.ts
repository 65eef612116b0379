import type { FastifyRequest } from 'fastify';
import { queryToken } from '../../core/auth/authenticate.ts';
import type { RealtimeSession } from '../../core/realtime/contributions.ts';

/** The credential exactly as the client sent it (header first, as the authenticate hook reads it). */
export function presentedToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] !== undefined) return match[1];
  return queryToken(request);
}

/**
 * The session of an upgraded request, already verified by the authenticate hook; undefined when the
 * principal is not a session of an actor (the route accepts nothing else, so only a bug gets here).
 */
export function openSession(request: FastifyRequest): RealtimeSession | undefined {
  const principal = request.principal;
  const token = presentedToken(request);
  if (principal?.kind !== 'session' || token === undefined) return undefined;
  const { tenantId, actor } = principal;
  if (tenantId === undefined || actor === undefined) return undefined;
  return { principal, tenantId, actor, token };
}
