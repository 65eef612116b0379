import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MODULES } from '../../src/app.ts';
import { security as analytics } from '../../src/modules/analytics/__tests__/security.ts';
import { security as auctions } from '../../src/modules/auctions/__tests__/security.ts';
import { security as chat } from '../../src/modules/chat/__tests__/security.ts';
import { security as payments } from '../../src/modules/payments/__tests__/security.ts';
import { security as presence } from '../../src/modules/presence/__tests__/security.ts';
import { security as rooms } from '../../src/modules/rooms/__tests__/security.ts';
import { security as storefront } from '../../src/modules/storefront/__tests__/security.ts';
import { security as sync } from '../../src/modules/sync/__tests__/security.ts';
import { security as webhooks } from '../../src/modules/webhooks/__tests__/security.ts';
import { notesModule } from '../fixtures/notes-module/manifest.ts';
import { notesSecurity } from '../fixtures/notes-module/security.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';
import { coveredOperations } from '../support/security-suite.ts';

/** Every module's registration with the shared security suite, the fixture's included. */
const REGISTRATIONS = new Map([
  ['analytics', coveredOperations(analytics)],
  ['auctions', coveredOperations(auctions)],
  ['chat', coveredOperations(chat)],
  ['payments', coveredOperations(payments)],
  ['presence', coveredOperations(presence)],
  ['rooms', coveredOperations(rooms)],
  ['storefront', coveredOperations(storefront)],
  ['sync', coveredOperations(sync)],
  ['webhooks', coveredOperations(webhooks)],
  ['notes', coveredOperations(notesSecurity)],
]);

/**
 * The security suite is complete: every `/v1` operation of every module in `/openapi.json` (tagged with
 * the module's name) is registered with it, so a route added without its security coverage fails here.
 * Console routes (`/api/console`) are guarded by console roles and tested with the console.
 */
describe('security suite coverage', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      modules: [...MODULES, notesModule({ events: [], workerStarted: false, workerStopped: false })],
    });
  });
  after(() => t.close());

  test('every module is registered', () => {
    assert.deepEqual([...REGISTRATIONS.keys()].sort(), [...MODULES.map((m) => m.name), 'notes'].sort());
  });

  test('every /v1 operation of a module is in its registration', async () => {
    const res = await call(t.app, { method: 'GET', url: '/openapi.json' });
    const document = res.json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>();
    const missing: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const module = (operation.tags ?? []).find((tag) => REGISTRATIONS.has(tag));
        if (module === undefined) continue;
        checked += 1;
        const name = `${method.toUpperCase()} ${path}`;
        if (!REGISTRATIONS.get(module)?.includes(name)) missing.push(`${module}: ${name}`);
      }
    }
    assert.deepEqual(missing, [], 'operations without security coverage');
    assert.ok(checked >= 15, `only ${checked} module operations found in /openapi.json`);
  });
});
