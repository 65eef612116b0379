import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as Y from 'yjs';
import { systemContext } from '../../src/core/modules/hooks.ts';
import { platformEventRow } from '../../src/modules/analytics/capture.ts';
import { updateRoom } from '../../src/modules/rooms/verbs/update-room.ts';
import { documentJson } from '../../src/modules/sync/document-json.ts';
import { createTestTenant, type TestTenant } from '../factories.ts';
import { buildTestApp, call, type TestApp } from '../helper.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Names every plain object inherits from Object.prototype. */
const INHERITED = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Objects keyed by arbitrary strings whose keys never come from a request (reviewed): an entry says why.
 * Anything else is a Map, or an object made by `Object.fromEntries` and read with `Object.hasOwn`.
 */
const REVIEWED = new Map([
  ['config/retention.ts AGE_UNITS_MS', 'SVC_RETENTION units, matched by /[mhd]/ first'],
  ['config/retention.ts ages', 'SVC_RETENTION rule names, matched by /^[a-z]…/ and read with Object.hasOwn'],
  ['core/http/validation.ts node', 'keys of the JSON schemas written in src'],
  ['core/retention/worker.ts deleted', 'retention rule names declared by manifests (checkRetentionRule)'],
]);

/**
 * Issue 28 item 15: `COLUMNS[property]` found `constructor` on Object.prototype and pasted it into SQL (500),
 * `ASSETS[file]` served `/docs/static/constructor` as a file (500), and `metadata[key] = value` dropped a
 * `__proto__` key (it sets the prototype instead). The rule, made mechanical: an object declared as
 * `Record<string, …>` (or `{[k: string]: …}`) is not indexed with a computed key, read or written.
 */
describe('own properties only: a string from a request never indexes an object', () => {
  test('no object keyed by arbitrary strings is indexed with a computed key in src', () => {
    const found: string[] = [];
    const reviewed = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      const text = fs.readFileSync(file, 'utf8');
      const declared = text.matchAll(
        /(?:const|let)\s+(\w+)\s*:\s*(?:Record<string,|\{\s*\[\w+:\s*string\])[^=;]*=\s*[{(]/g,
      );
      for (const name of new Set([...declared].map((m) => m[1] ?? ''))) {
        const indexed = new RegExp(`\\b${name}\\??\\.?\\[(?!\\s*['"\`\\d])`);
        const key = `${path.relative(SRC, file)} ${name}`;
        for (const [i, line] of text.split('\n').entries()) {
          if (!indexed.test(line)) continue;
          if (REVIEWED.has(key)) reviewed.add(key);
          else found.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`);
        }
      }
    }
    assert.deepEqual(found, [], 'use a Map, or Object.fromEntries and Object.hasOwn');
    assert.deepEqual([...reviewed].sort(), [...REVIEWED.keys()].sort(), 'a reviewed entry no longer applies');
  });
});

describe('own properties only: the places that had it wrong', () => {
  let t: TestApp;
  let tenant: TestTenant;

  before(async () => {
    t = await buildTestApp();
    tenant = await createTestTenant(t);
  });
  after(() => t.close());

  test('/docs/static/<inherited name> is 404, not 500', async () => {
    for (const name of INHERITED) {
      const res = await call(t.app, { method: 'GET', url: `/docs/static/${name}` });
      assert.equal(res.statusCode, 404, `${name}: ${res.body}`);
    }
    const asset = await call(t.app, { method: 'GET', url: '/docs/static/index.css' });
    assert.equal(asset.statusCode, 200);
  });

  test('?metadata.__proto__=x filters rooms as any key does (it was dropped: every room matched)', async () => {
    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { name: 'lobby', metadata: { constructor: 'a' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const list = async (query: string) => {
      const res = await call(t.app, {
        method: 'GET',
        url: `/v1/rooms?${query}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ data: unknown[] }>().data.length;
    };
    assert.equal(await list('metadata.__proto__=x'), 0);
    assert.equal(await list('metadata.constructor=a'), 1);
    assert.equal(await list('metadata.toString=a'), 0);
  });

  test('a metadata patch (as MCP parses it) keeps a __proto__ key', async () => {
    const created = await call(t.app, {
      method: 'POST',
      url: '/v1/rooms',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { name: 'patched' },
    });
    const roomId = created.json<{ id: string }>().id;
    const ctx = systemContext({ ...t.app.services, log: t.app.log }, tenant.tenantId);
    const room = await updateRoom(ctx, { roomId, metadata: JSON.parse('{"__proto__":"kept","b":1}') });
    assert.deepEqual(Object.entries(room.metadata).sort(), [
      ['__proto__', 'kept'],
      ['b', 1],
    ]);
  });

  test("a document root named __proto__ is in the document's JSON", () => {
    const doc = new Y.Doc();
    doc.getMap('__proto__').set('a', 1);
    doc.getMap('constructor').set('b', 2);
    assert.deepEqual(Object.entries(documentJson(doc)), [
      ['__proto__', { a: 1 }],
      ['constructor', { b: 2 }],
    ]);
  });

  test("a platform event's data key named __proto__ becomes a property", () => {
    const ctx = systemContext({ ...t.app.services, log: t.app.log }, tenant.tenantId);
    const row = platformEventRow(ctx, {
      id: 'evt_1',
      tenantId: tenant.tenantId,
      type: 'room.updated',
      data: JSON.parse('{"__proto__":"p","room":{"__proto__":"q","name":"n"}}'),
      createdAt: '2026-05-01T00:00:00.000Z',
      trace: { traceId: 't', spanId: 's', requestId: 'r', origin: 'api' },
    });
    assert.deepEqual(Object.entries(row.properties).sort(), [
      ['__proto__', 'p'],
      ['room.__proto__', 'q'],
      ['room.name', 'n'],
    ]);
  });
});
