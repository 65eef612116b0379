import { MODULES } from '../../src/app.ts';
import { isModuleIsolation, isolationSuite } from '../support/isolation-suite.ts';
import { discoverModuleTests } from '../support/module-tests.ts';
import { coreIsolation } from './core.ts';

/**
 * Tenant isolation of every route that names a resource: core's cases (./core.ts) and each module's, from
 * `src/modules/<name>/__tests__/isolation.ts`, found through the module list. A module without the file, or
 * a route with a path parameter that no case names, fails the suite.
 */
const { found, missing } = await discoverModuleTests(MODULES, 'isolation', isModuleIsolation);

isolationSuite({ registrations: [coreIsolation, ...found], missing });
