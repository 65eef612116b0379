import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../factories.ts';
import { type BuildOptions, buildTestApp, call, type Response, type TestApp } from '../helper.ts';
import { isRegistrationOf } from './module-tests.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request tenant A makes at a record of tenant B. */
export interface IsolationRequest {
  method: Method;
  url: string;
  payload?: Record<string, unknown>;
}

/**
 * How tenant A calls: its API key (`/v1`), its owner's console token (`/api/console`), or its product
 * key (`/api/public`).
 */
export type Credential = 'apiKey' | 'console' | 'productKey';

/** The two tenants of the suite, in one app: A's credentials aim at B's records. */
export interface IsolationWorld {
  t: TestApp;
  a: TestTenant;
  b: TestTenant;
  /** Put it in B's records: no answer to A may contain it. */
  marker: string;
  /** Tenant A's credentials as headers (its product key as `X-SVC-Product-Key`). */
  asA: Record<Credential, () => Record<string, string>>;
  /**
   * Makes one of tenant B's records: a POST with B's API key (`console`: B's owner's token) that must
   * answer `status` (201 unless said).
   */
  inB(
    url: string,
    payload?: Record<string, unknown>,
    options?: { console?: boolean; status?: number },
  ): Promise<Response>;
}

/** A route's case: the request for B's records that `setup` made, keyed `METHOD /path/:param`. */
export type IsolationCase<Ids> = (ids: Ids, world: IsolationWorld) => IsolationRequest;

/** A module's isolation cases, typed by the records its setup makes. */
export interface IsolationCases<Ids> {
  module: string;
  /** Makes tenant B's records through the API (put `world.marker` in what an answer could show). */
  setup: (world: IsolationWorld) => Promise<Ids>;
  /**
   * Every route of the module with a path parameter, keyed as Fastify lists it (`GET /v1/rooms/:roomId`),
   * under the credential that calls it: A's credential on B's records answers 404 and shows nothing of B.
   */
  cases: Partial<Record<Credential, Record<string, IsolationCase<Ids>>>>;
  /** Routes with a path parameter that names no tenant record, each with the reason. */
  notTenantScoped?: Record<string, string>;
  /** Checks run after every module's cases: B's records untouched, A's lists and actions without B's rows. */
  checks?: Record<string, (world: IsolationWorld, ids: Ids) => Promise<void>>;
}

/** A module's cases with their records bound: what the suite runs. */
export interface ModuleIsolation {
  module: string;
  /** The routes it covers, by credential, and those that name no tenant record. */
  routes: Record<Credential, string[]>;
  notTenantScoped: string[];
  /** The names of its checks. */
  checks: string[];
  /** Runs `setup` in the world; the requests and checks then use its records. */
  prepare(world: IsolationWorld): Promise<PreparedIsolation>;
}

interface PreparedIsolation {
  requests: Record<Credential, [string, IsolationRequest][]>;
  checks: Map<string, () => Promise<void>>;
}

/** A module's isolation cases (export it as `isolation` from `__tests__/isolation.ts`). */
export function defineIsolation<Ids>(cases: IsolationCases<Ids>): ModuleIsolation {
  const byCredential = (credential: Credential) => Object.entries(cases.cases[credential] ?? {});
  return {
    module: cases.module,
    routes: {
      apiKey: Object.keys(cases.cases.apiKey ?? {}),
      console: Object.keys(cases.cases.console ?? {}),
      productKey: Object.keys(cases.cases.productKey ?? {}),
    },
    notTenantScoped: Object.keys(cases.notTenantScoped ?? {}),
    checks: Object.keys(cases.checks ?? {}),
    async prepare(world) {
      const ids = await cases.setup(world);
      const requests = (credential: Credential) =>
        byCredential(credential).map(([name, make]): [string, IsolationRequest] => [name, make(ids, world)]);
      return {
        requests: {
          apiKey: requests('apiKey'),
          console: requests('console'),
          productKey: requests('productKey'),
        },
        checks: new Map(
          Object.entries(cases.checks ?? {}).map(([name, check]) => [name, () => check(world, ids)]),
        ),
      };
    },
  };
}

export function isModuleIsolation(value: unknown, module: string): value is ModuleIsolation {
  return isRegistrationOf(value, module, ['routes', 'notTenantScoped', 'prepare']);
}

/** What tenant A gets for each credential: 404 (`not_found` for API keys) and nothing of B. */
const REFUSALS: Record<Credential, { title: string; code?: string }> = {
  apiKey: { title: "tenant A's API key on tenant B's resources", code: 'not_found' },
  console: { title: "tenant A's owner on tenant B's console routes" },
  productKey: { title: "tenant A's product key on tenant B's public records" },
};

export interface IsolationSuiteOptions {
  /** Every module's cases (core's included): each route with a path parameter must be in one of them. */
  registrations: readonly ModuleIsolation[];
  /** Modules whose isolation file is missing, as the discovery names them: the suite fails on each. */
  missing?: readonly string[];
  /** The modules whose records are made and cases run (default: all). */
  run?: readonly string[];
  app?: BuildOptions;
}

/**
 * Two tenants in one app. Every route that names a resource is called with tenant A's credential on
 * tenant B's ids: it must answer 404 and never show B's data. A route with a path parameter that no
 * module's cases name fails the completeness check.
 */
export function isolationSuite(options: IsolationSuiteOptions): void {
  const { registrations } = options;
  const running = registrations.filter((r) => options.run?.includes(r.module) ?? true);
  describe('tenant isolation', () => {
    let t: TestApp;
    let world: IsolationWorld;
    const prepared: { module: string; isolation: PreparedIsolation }[] = [];

    before(async () => {
      t = await buildTestApp(options.app);
      const a = await createTestTenant(t, { name: 'Tenant A' });
      const b = await createTestTenant(t, { name: 'Tenant B' });
      const product = await call(t.app, {
        method: 'POST',
        url: `/api/console/tenants/${a.tenantId}/product-keys`,
        headers: bearer(a.ownerToken),
        payload: { name: 'a storefront' },
      });
      assert.equal(product.statusCode, 201, product.body);
      const aProductKey = product.json<{ key: string }>().key;
      world = {
        t,
        a,
        b,
        marker: `secret-of-b-${Date.now()}`,
        asA: {
          apiKey: () => ({ 'x-api-key': a.apiKey }),
          console: () => bearer(a.ownerToken),
          productKey: () => ({ 'x-svc-product-key': aProductKey }),
        },
        async inB(url, payload, options = {}) {
          const headers = bearer(options.console === true ? b.ownerToken : b.apiKey);
          const res = await call(t.app, {
            method: 'POST',
            url,
            headers,
            ...(payload === undefined ? {} : { payload }),
          });
          assert.equal(res.statusCode, options.status ?? 201, `${url}: ${res.body}`);
          return res;
        },
      };
      for (const registration of running) {
        prepared.push({ module: registration.module, isolation: await registration.prepare(world) });
      }
    });
    after(() => t.close());

    test('every module has its isolation cases in its folder', () => {
      assert.deepEqual(options.missing ?? [], [], 'write these files');
    });

    test('every parameterised tenant route has an isolation case', () => {
      const covered = new Set(
        registrations.flatMap((r) => [...Object.values(r.routes).flat(), ...r.notTenantScoped]),
      );
      const uncovered = t.app.routeList
        .filter((r) => r.url.includes(':') || r.url.includes('*'))
        .map((r) => `${r.method} ${r.url}`)
        .filter((r) => !covered.has(r));
      assert.deepEqual([...new Set(uncovered)], [], "add these routes to their module's isolation cases");
    });

    for (const credential of ['apiKey', 'console', 'productKey'] as const) {
      const { title, code } = REFUSALS[credential];
      test(`${title} -> 404, nothing of B shown`, async () => {
        for (const { isolation } of prepared) {
          for (const [name, { method, url, payload }] of isolation.requests[credential]) {
            const res = await call(t.app, {
              method,
              url,
              headers: world.asA[credential](),
              ...(payload === undefined ? {} : { payload }),
            });
            assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
            if (code !== undefined) assert.equal(res.json().error, code, name);
            assert.doesNotMatch(res.body, new RegExp(world.marker), name);
          }
        }
      });
    }

    // After every module's cases: B's records untouched, A's lists and actions without B's rows.
    for (const registration of running) {
      for (const name of registration.checks) {
        test(`${registration.module}: ${name}`, async () => {
          const check = prepared.find((p) => p.module === registration.module)?.isolation.checks.get(name);
          assert.ok(check !== undefined, 'the setup ran');
          await check();
        });
      }
    }
  });
}
