import { randomUUID } from 'node:crypto';
import { tenantSetup } from '../src/app.ts';
import { DEV_ISSUER, signDevToken } from '../src/core/auth/dev-issuer.ts';
import { systemClock } from '../src/core/clock.ts';
import type { Database } from '../src/core/db/database.ts';
import { createApiKey as createKeyVerb } from '../src/core/tenancy/api-keys.ts';
import type { WorkspaceType } from '../src/core/tenancy/roles.ts';
import { createTenant } from '../src/core/tenancy/tenants.ts';
import { resolveHostedUser } from '../src/core/tenancy/users.ts';
import { call, type TestApp } from './helper.ts';

/** A hosted-auth JWT from the dev issuer the test app trusts. */
export async function hostedToken(
  t: TestApp,
  sub: string = `user-${randomUUID()}`,
  options: { email?: string; ttlSeconds?: number } = {},
): Promise<string> {
  const issuer = t.app.identity.hosted.devIssuer;
  if (issuer === undefined) throw new Error('the test app runs no dev issuer');
  return signDevToken(issuer, { sub, ...options }, t.app.services.clock.now());
}

export interface TestTenant {
  tenantId: string;
  ownerUserId: string;
  ownerSub: string;
  ownerToken: string;
  /** An API key with every scope. */
  apiKey: string;
}

/** A fresh tenant with every module enabled, its owner (and their console token) and a full API key. */
export async function createTestTenant(
  t: TestApp,
  options: { workspaceType?: WorkspaceType; name?: string } = {},
): Promise<TestTenant> {
  const ownerSub = `owner-${randomUUID()}`;
  const system = { db: t.db, clock: t.app.services.clock };
  const owner = await resolveHostedUser(system, {
    provider: DEV_ISSUER,
    subject: ownerSub,
    email: `${ownerSub}@example.test`,
    emailVerified: true,
    name: 'Owner',
  });
  const tenant = await createTenant(
    system,
    {
      name: options.name ?? 'Test tenant',
      workspaceType: options.workspaceType ?? 'sandbox',
      ownerUserId: owner.id,
    },
    tenantSetup(t.app.services.registry.modules),
  );
  const apiKey = await createApiKey(t, tenant.id, ['*']);
  return {
    tenantId: tenant.id,
    ownerUserId: owner.id,
    ownerSub,
    ownerToken: await hostedToken(t, ownerSub),
    apiKey,
  };
}

export async function createApiKey(
  t: TestApp,
  tenantId: string,
  scopes: string[],
  options: { expiresAt?: string } = {},
): Promise<string> {
  const { db, clock, registry } = t.app.services;
  const created = await createKeyVerb(
    { db, tenantId, clock },
    {
      name: `key ${scopes.join(' ')}`,
      scopes,
      knownScopes: registry.knownScopes,
      expiresAt: options.expiresAt,
    },
  );
  return created.key;
}

export interface ConnectOptions {
  modules?: string[];
  actorId?: string;
  type?: 'end_user' | 'agent' | 'guest';
  roomId?: string;
}

/** A session token through the real POST /v1/runtime/connect. */
export async function connectSession(
  t: TestApp,
  apiKey: string,
  options: ConnectOptions = {},
): Promise<{ token: string; sessionId: string; actorId: string }> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/runtime/connect',
    headers: { 'x-api-key': apiKey },
    payload: {
      modules: options.modules ?? ['rooms', 'presence', 'chat'],
      actor: {
        type: options.type ?? 'end_user',
        id: options.actorId ?? `test:${randomUUID()}`,
        identityProvider: 'test',
      },
      ...(options.roomId === undefined ? {} : { roomId: options.roomId }),
    },
  });
  if (res.statusCode !== 201) throw new Error(`connect failed: ${res.statusCode} ${res.body}`);
  const body = res.json<{ token: string; sessionId: string; actor: { id: string } }>();
  return { token: body.token, sessionId: body.sessionId, actorId: body.actor.id };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A tenant made the way the service makes one (its owner, the default modules on), on a database without
 * an app (tests of the data layer). Returns its id.
 */
export async function createTenantOn(db: Database, name = 'test tenant'): Promise<string> {
  const subject = `owner-${randomUUID()}`;
  const system = { db, clock: systemClock };
  const owner = await resolveHostedUser(system, {
    provider: 'tests',
    subject,
    email: `${subject}@example.test`,
    emailVerified: true,
    name: 'Owner',
  });
  const tenant = await createTenant(
    system,
    { name, workspaceType: 'sandbox', ownerUserId: owner.id },
    tenantSetup(),
  );
  return tenant.id;
}
