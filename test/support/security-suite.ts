import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, connectSession, createApiKey, createTestTenant, type TestTenant } from '../factories.ts';
import { type BuildOptions, buildTestApp, call, type TestApp } from '../helper.ts';
import { isRegistrationOf } from './module-tests.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route of a module, as the suite calls it. */
export interface SecuredRoute<Ids> {
  method: Method;
  /** The route's URL for records that `setup` made. */
  url: (ids: Ids) => string;
  /** A valid body, so a refusal can only come from the check under test (bytes go as octet-stream). */
  payload?: (ids: Ids) => Record<string, unknown> | Buffer;
  /** The scope the route requires. */
  scope: string;
  /** Whether session tokens may call it (API keys always may). */
  sessions: boolean;
  /** The path names a room (`:roomId`): a session token limited to another room is refused. */
  roomScoped: boolean;
  /** The path names records of the tenant: another tenant's credential gets 404 for them. */
  namesRecords: boolean;
  /** What the owner's key gets on fresh records when it is not a 2xx (the record's state refuses it). */
  control?: number;
}

/** A module's whole security coverage: how to make its records, and its routes. */
export interface SecurityRegistration<Ids> {
  module: string;
  /** Makes, in `tenant` and through the API, the records the routes name. */
  setup: (t: TestApp, tenant: TestTenant) => Promise<Ids>;
  routes: readonly SecuredRoute<Ids>[];
  /** Modules a session token needs besides the module itself (e.g. rooms, to see the room). */
  sessionModules?: readonly string[];
  /** How to build the app (e.g. with a fixture module added). */
  app?: BuildOptions;
}

/** A registration, typed by its records (the identity: it only lets TypeScript infer `Ids`). */
export function defineSecurity<Ids>(registration: SecurityRegistration<Ids>): SecurityRegistration<Ids> {
  return registration;
}

/**
 * A module's registration as `__tests__/security.ts` exports it (`security`). Its records' type is the
 * module's own; the suite only hands `setup`'s records back to the routes, so any type does.
 */
export function isSecurityRegistration(
  value: unknown,
  module: string,
): value is SecurityRegistration<unknown> {
  return isRegistrationOf(value, module, ['setup', 'routes']);
}

/** The routes a registration covers, as `METHOD /path/{param}` like the OpenAPI document names them. */
export function coveredOperations<Ids>(registration: SecurityRegistration<Ids>): string[] {
  return registration.routes.map((route) => {
    const placeholders = new Proxy({}, { get: (_target, key) => `{${String(key)}}` });
    return `${route.method} ${route.url(placeholders as Ids).split('?')[0]}`;
  });
}

/** A scope no module route requires: a key with only it is authenticated but holds nothing useful. */
const UNRELATED_SCOPE = 'events:read';

/**
 * The shared security suite: for every registered route, first a control (the owner's key gets a 2xx on
 * fresh records), then: no credential -> 401 `unauthorized`; an API key
 * without the route's scope -> 403 `insufficient_scope`; the module disabled for the tenant -> 403
 * `module_disabled`; another tenant's credential on this tenant's records -> 404 `not_found`; a session
 * token not minted for the module -> 403 `insufficient_scope`; a session token limited to another room
 * -> 403 `forbidden`; a session token on a route for API keys -> 401 `unauthorized`.
 */
export function securitySuite<Ids>(registration: SecurityRegistration<Ids>): void {
  const { module } = registration;
  describe(`security: the ${module} module's routes`, () => {
    let t: TestApp;
    let owner: TestTenant;
    let stranger: TestTenant;
    let disabled: TestTenant;
    let ids: Ids;
    let idsOfDisabled: Ids;
    let unscopedKey: string;
    const sessions: { otherRoom?: string; otherModule?: string; own?: string } = {};

    before(async () => {
      t = await buildTestApp(registration.app);
      owner = await createTestTenant(t, { name: `${module} owner` });
      stranger = await createTestTenant(t, { name: `${module} stranger` });
      disabled = await createTestTenant(t, { name: `${module} disabled` });
      ids = await registration.setup(t, owner);
      idsOfDisabled = await registration.setup(t, disabled);
      const off = await call(t.app, {
        method: 'PUT',
        url: `/api/console/tenants/${disabled.tenantId}/modules/${module}`,
        headers: bearer(disabled.ownerToken),
        payload: { enabled: false },
      });
      assert.equal(off.statusCode, 200, off.body);
      unscopedKey = await createApiKey(t, owner.tenantId, [UNRELATED_SCOPE]);
      const modules = [module, ...(registration.sessionModules ?? [])];
      sessions.own = (await connectSession(t, owner.apiKey, { modules })).token;
      sessions.otherRoom = (
        await connectSession(t, owner.apiKey, { modules, roomId: 'a-room-of-its-own' })
      ).token;
      const others = ['rooms', 'presence', 'chat'].filter((m) => m !== module);
      sessions.otherModule = (await connectSession(t, owner.apiKey, { modules: others })).token;
    });
    after(() => t.close());

    const send = (route: SecuredRoute<Ids>, records: Ids, headers: Record<string, string>) => {
      const payload = route.payload?.(records);
      return call(t.app, {
        method: route.method,
        url: route.url(records),
        headers:
          payload instanceof Buffer ? { ...headers, 'content-type': 'application/octet-stream' } : headers,
        ...(payload === undefined ? {} : { payload }),
      });
    };
    const refusal = (res: { statusCode: number; json<T>(): T }) =>
      `${res.statusCode} ${res.json<{ error?: string }>().error}`;

    for (const route of registration.routes) {
      describe(`${route.method} ${describeUrl(route)}`, () => {
        // The control: with the right credential the route answers, so each refusal below is the check's.
        test(`the owner's API key with ${route.scope}: ${route.control ?? '2xx'}`, async () => {
          const res = await send(route, await registration.setup(t, owner), bearer(owner.apiKey));
          const answered =
            route.control === undefined
              ? res.statusCode >= 200 && res.statusCode < 300
              : res.statusCode === route.control;
          assert.ok(answered, `${res.statusCode} ${res.body}`);
        });
        test('no credential: 401 unauthorized', async () => {
          assert.equal(refusal(await send(route, ids, {})), '401 unauthorized');
        });
        test(`an API key without ${route.scope}: 403 insufficient_scope`, async () => {
          assert.equal(refusal(await send(route, ids, bearer(unscopedKey))), '403 insufficient_scope');
        });
        test('the module disabled for the tenant: 403 module_disabled', async () => {
          assert.equal(
            refusal(await send(route, idsOfDisabled, bearer(disabled.apiKey))),
            '403 module_disabled',
          );
        });
        if (route.namesRecords) {
          test("another tenant's credential on these records: 404 not_found", async () => {
            assert.equal(refusal(await send(route, ids, bearer(stranger.apiKey))), '404 not_found');
          });
        }
        if (!route.sessions) {
          test('a session token: 401 unauthorized (API keys only)', async () => {
            assert.equal(refusal(await send(route, ids, bearer(sessions.own ?? ''))), '401 unauthorized');
          });
          return;
        }
        test('a session token not minted for the module: 403 insufficient_scope', async () => {
          assert.equal(
            refusal(await send(route, ids, bearer(sessions.otherModule ?? ''))),
            '403 insufficient_scope',
          );
        });
        if (route.roomScoped) {
          test('a session token limited to another room: 403 forbidden', async () => {
            assert.equal(refusal(await send(route, ids, bearer(sessions.otherRoom ?? ''))), '403 forbidden');
          });
        }
      });
    }
  });
}

/** The route's URL with placeholder ids, for test names. */
function describeUrl<Ids>(route: SecuredRoute<Ids>): string {
  const placeholders = new Proxy({}, { get: (_target, key) => `:${String(key)}` });
  return route.url(placeholders as Ids);
}

/** The usual setup of a room-scoped module: one room, made through the API. */
export async function oneRoom(t: TestApp, tenant: TestTenant): Promise<{ roomId: string }> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/rooms',
    headers: bearer(tenant.apiKey),
    payload: {},
  });
  assert.equal(res.statusCode, 201, res.body);
  return { roomId: res.json<{ id: string }>().id };
}
