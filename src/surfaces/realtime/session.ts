import type { FastifyRequest } from 'fastify';
import { queryToken } from '../../core/auth/authenticate.ts';
import { hasScope } from '../../core/auth/principal.ts';
import type { Permissions, Session } from './connection.ts';

/** The credential exactly as the client sent it (header first, as the authenticate hook reads it). */
function presentedToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] !== undefined) return match[1];
  return queryToken(request);
}

/**
 * The session of an upgraded request, already verified by the authenticate hook; undefined when the
 * principal is not a session of an actor (the route accepts nothing else, so only a bug gets here).
 */
export function openSession(request: FastifyRequest): { session: Session; can: Permissions } | undefined {
  const principal = request.principal;
  const token = presentedToken(request);
  if (principal?.kind !== 'session' || token === undefined) return undefined;
  const { tenantId, actor } = principal;
  if (tenantId === undefined || actor === undefined) return undefined;
  const modules = new Set(principal.modules ?? []);
  const allowed = (module: string, scope: string) => modules.has(module) && hasScope(principal, scope);
  return {
    session: { principal, tenantId, actor, token },
    can: {
      modules,
      chatRead: allowed('chat', 'chat:read'),
      chatWrite: allowed('chat', 'chat:write'),
      presenceRead: allowed('presence', 'presence:read'),
      presenceWrite: allowed('presence', 'presence:write'),
    },
  };
}
