import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { bearer, hostedToken, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { suiteFixture } from '../support/suite.ts';

/** One row of a tenant's team list. */
export interface TeamEntry {
  status: 'active' | 'pending';
  userId: string | null;
  invitationId: string | null;
  email: string | null;
  role: string;
}

/** A test app for the console suites and the helpers they act through. */
export interface ConsoleSuite {
  readonly t: TestApp;
  /** Calls as the holder of a console token. */
  as(token: string): ConsoleCalls;
  /** A user with a verified email, signed in once so they exist. */
  person(): Promise<{ sub: string; email: string; token: string; userId: string }>;
  /** Invites someone with `role` and lets them sign in, so they are an active member. */
  addMember(tenant: TestTenant, role: string): ReturnType<ConsoleSuite['person']>;
  /** The tenant's team, as its owner reads it. */
  team(tenant: TestTenant): Promise<TeamEntry[]>;
}

type Reply = ReturnType<typeof call>;

export interface ConsoleCalls {
  get(url: string): Reply;
  post(url: string, payload: Record<string, unknown>): Reply;
  patch(url: string, payload: Record<string, unknown>): Reply;
  delete(url: string): Reply;
}

/** Opens the app before the describe's tests (failed sign-ins unlimited) and closes it after them. */
export function consoleSuite(): ConsoleSuite {
  const app = suiteFixture(
    'consoleSuite',
    () => buildTestApp({ config: { authFailureLimit: 1_000_000 } }),
    (t) => t.close(),
  );
  const as = (token: string): ConsoleCalls => ({
    get: (url) => call(app().app, { method: 'GET', url, headers: bearer(token) }),
    post: (url, payload) => call(app().app, { method: 'POST', url, headers: bearer(token), payload }),
    patch: (url, payload) => call(app().app, { method: 'PATCH', url, headers: bearer(token), payload }),
    delete: (url) => call(app().app, { method: 'DELETE', url, headers: bearer(token) }),
  });
  async function person() {
    const sub = `person-${randomUUID()}`;
    const email = `${sub}@example.test`;
    const token = await hostedToken(app(), sub, { email });
    const res = await as(token).get('/api/auth/user');
    assert.equal(res.statusCode, 200, res.body);
    return { sub, email, token, userId: res.json<{ user: { id: string } }>().user.id };
  }
  async function addMember(tenant: TestTenant, role: string) {
    const who = await person();
    const invite = await as(tenant.ownerToken).post(`/api/console/tenants/${tenant.tenantId}/members`, {
      email: who.email,
      role,
    });
    assert.equal(invite.statusCode, 201, invite.body);
    assert.equal((await as(who.token).get('/api/auth/user')).statusCode, 200);
    return who;
  }
  const team = async (tenant: TestTenant) =>
    (await as(tenant.ownerToken).get(`/api/console/tenants/${tenant.tenantId}/members`)).json<{
      data: TeamEntry[];
    }>().data;
  return {
    get t() {
      return app();
    },
    as,
    person,
    addMember,
    team,
  };
}
