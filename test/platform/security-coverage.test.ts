import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { pollsModule } from '../fixtures/polls-module/manifest.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { discoverModuleTests, withFixture } from '../support/module-tests.ts';
import { coveredOperations, isSecurityRegistration } from '../support/security-suite.ts';

/** Every module's registration with the shared security suite, from its folder; the fixture's included. */
const modules = withFixture(MODULES, pollsModule);
const { found, missing } = await discoverModuleTests(modules, 'security', isSecurityRegistration, {
  polls: new URL('../fixtures/polls-module/', import.meta.url),
});
const REGISTRATIONS = new Map(
  found.map((registration) => [registration.module, coveredOperations(registration)]),
);

/**
 * The security suite is complete: every module has its registration (`__tests__/security.ts` in its
 * folder), and every `/v1` operation of every module in `/openapi.json` (tagged with the module's name) is
 * in it, so a route added without its security coverage fails here. Console routes (`/api/console`) are
 * guarded by console roles and tested with the console.
 */
describe('security suite coverage', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ modules });
  });
  after(() => t.close());

  test('every module has its registration in its folder', () => {
    assert.deepEqual(missing, [], 'write these files');
    assert.deepEqual([...REGISTRATIONS.keys()].sort(), modules.map((m) => m.name).sort());
  });

  // The fixture's registration runs in test/platform/fixture-module.test.ts.
  test("a module's registration with routes is run by its own security.test.ts", () => {
    const runs = (file: URL) =>
      fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('securitySuite(security)');
    const unrun = found
      .filter((registration) => registration.routes.length > 0 && registration.module !== pollsModule.name)
      .map((registration) => `src/modules/${registration.module}/__tests__/security.test.ts`)
      .filter((file) => !runs(new URL(`../../${file}`, import.meta.url)));
    assert.deepEqual(unrun, [], 'these files should run securitySuite(security)');
  });

  test('every /v1 operation of a module is in its registration', async () => {
    const res = await call(t.app, { method: 'GET', url: '/openapi.json' });
    const document = res.json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>();
    const uncovered: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const module = (operation.tags ?? []).find((tag) => REGISTRATIONS.has(tag));
        if (module === undefined) continue;
        checked += 1;
        const name = `${method.toUpperCase()} ${path}`;
        if (!REGISTRATIONS.get(module)?.includes(name)) uncovered.push(`${module}: ${name}`);
      }
    }
    assert.deepEqual(uncovered, [], 'operations without security coverage');
    assert.ok(checked >= 15, `only ${checked} module operations found in /openapi.json`);
  });
});
