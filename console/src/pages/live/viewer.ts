import { accessToken } from '../../lib/session.ts';

/** The Actor object a console user watches live pages as (`console:<user id>`), for runtime connect. */
export interface ViewerActor {
  type: 'agent';
  id: string;
  identityProvider: string;
  displayName?: string;
}

/** The claims of the signed-in user's JWT that name them; the service checks the token, this only reads it. */
function claims(): { sub?: unknown; name?: unknown; email?: unknown } {
  const payload = accessToken.value?.split('.')[1];
  if (payload === undefined) return {};
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The console viewer as an actor: an agent named after the console user, so what its session does (it
 * only reads) is told apart from the tenant's end users. Its tokens carry read scopes only, so it never
 * becomes a presence member or a chat author.
 */
export function viewerActor(): ViewerActor {
  const { sub, name, email } = claims();
  const user = typeof sub === 'string' && sub !== '' ? sub.replace(/[\s:]/g, '_').slice(0, 200) : 'viewer';
  const display = typeof name === 'string' ? name : typeof email === 'string' ? email : undefined;
  return {
    type: 'agent',
    id: `console:${user}`,
    identityProvider: 'console',
    ...(display === undefined ? {} : { displayName: display.slice(0, 200) }),
  };
}
