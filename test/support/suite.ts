import { after, before } from 'node:test';
import { createTestTenant, type TestTenant } from '../factories.ts';
import { type BuildOptions, buildTestApp, type TestApp } from '../helper.ts';

/**
 * What a `describe` opens once for its tests and closes after them. Call it in the describe's body; read
 * the value inside tests with `fixture()`. Reading it before the suite's `before` ran is a test bug and
 * throws with the fixture's name.
 */
export function suiteFixture<T>(
  name: string,
  open: () => Promise<T>,
  close: (value: T) => unknown = () => {},
): () => T {
  let value: { current: T } | undefined;
  before(async () => {
    value = { current: await open() };
  });
  after(async () => {
    if (value !== undefined) await close(value.current);
    value = undefined;
  });
  return () => {
    if (value === undefined) throw new Error(`${name} is read outside its suite's tests`);
    return value.current;
  };
}

/** A test app with tenants of its own, every module enabled: the setup most module suites start with. */
export interface AppSuite {
  /** The app (`.app`, `.db`, `.config`). */
  readonly t: TestApp;
  /** The first tenant. */
  readonly tenant: TestTenant;
  /** The first tenant's API key with every scope. */
  readonly key: string;
  /** Every tenant made for the suite, the first one first. */
  readonly tenants: readonly TestTenant[];
}

export interface AppSuiteOptions extends BuildOptions {
  /** How many tenants to make (default 1). */
  tenants?: number;
}

/**
 * Builds a test app and its tenants before the describe's tests and closes it after them:
 *
 *     describe('rooms', () => {
 *       const s = appSuite({ tenants: 2 });
 *       test('...', async () => { await call(s.t.app, { headers: keyOf(s.key), ... }); });
 *     });
 */
export function appSuite(options: AppSuiteOptions = {}): AppSuite {
  const { tenants: count = 1, ...build } = options;
  const opened = suiteFixture(
    'appSuite',
    async () => {
      const t = await buildTestApp(build);
      const tenants: TestTenant[] = [];
      for (let i = 0; i < count; i++) tenants.push(await createTestTenant(t));
      return { t, tenants };
    },
    ({ t }) => t.close(),
  );
  return {
    get t() {
      return opened().t;
    },
    get tenants() {
      return opened().tenants;
    },
    get tenant() {
      const [first] = opened().tenants;
      if (first === undefined) throw new Error('appSuite was asked for no tenants');
      return first;
    },
    get key() {
      return this.tenant.apiKey;
    },
  };
}
