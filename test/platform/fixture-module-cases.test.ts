import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { pollsModule } from '../fixtures/polls-module/manifest.ts';
import { coreIsolation } from '../isolation/core.ts';
import { isModuleIsolation, isolationSuite } from '../support/isolation-suite.ts';
import { discoverModuleTests, withFixture } from '../support/module-tests.ts';
import { isSecurityRegistration, securitySuite } from '../support/security-suite.ts';

const MODULES_AND_POLLS = withFixture(MODULES, pollsModule);
const FOLDERS = { polls: new URL('../fixtures/polls-module/', import.meta.url) };

/**
 * The polls fixture (the example of docs/contributing.md) passes its own security and isolation cases,
 * found in its folder the way the platform suites find every module's
 * (test/platform/security-coverage.test.ts, test/isolation/isolation.test.ts).
 */
const security = await discoverModuleTests([pollsModule], 'security', isSecurityRegistration, FOLDERS);
const isolation = await discoverModuleTests(MODULES_AND_POLLS, 'isolation', isModuleIsolation, FOLDERS);
describe("the fixture's own tests are found in its folder", () => {
  test('security.ts and isolation.ts', () => {
    assert.deepEqual([...security.missing, ...isolation.missing], []);
  });
  test('a module without them is named, with the file to write', async () => {
    const ballots = { ...pollsModule, name: 'ballots' };
    const none = await discoverModuleTests([ballots], 'isolation', isModuleIsolation);
    assert.deepEqual(none.missing, ['module ballots has no src/modules/ballots/__tests__/isolation.ts']);
    const elsewhere = await discoverModuleTests([ballots], 'security', isSecurityRegistration, {
      ballots: FOLDERS.polls,
    });
    assert.deepEqual(elsewhere.missing, [
      'test/fixtures/polls-module/__tests__/security.ts exports no `security` registration of module ballots',
    ]);
  });
});
for (const registration of security.found)
  securitySuite({ ...registration, app: { modules: MODULES_AND_POLLS } });
isolationSuite({
  registrations: [coreIsolation, ...isolation.found],
  missing: isolation.missing,
  run: ['polls'],
  app: { modules: MODULES_AND_POLLS },
});
