import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, call, type TestApp } from '../helper.ts';

const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/index-Ab12_x.js"></script></head><body><div id="app"></div></body></html>\n';
const SCRIPT = 'console.log("console");\n';
const CSP_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];

/** A console build of two files, in a folder of its own. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-static-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12_x.js'), SCRIPT);
  return dir;
}

describe('the console at /console', () => {
  let t: TestApp;
  const dir = fakeBuild();
  before(async () => {
    t = await buildTestApp({ config: { consoleDir: dir } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('/console and every client route answer index.html, never cached, under a strict CSP', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/t/ten_x/rooms/room_1?status=live',
      '/console/callback',
    ]) {
      const res = await call(t.app, { method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const csp = String(res.headers['content-security-policy']).split('; ');
      for (const directive of CSP_DIRECTIVES) assert.ok(csp.includes(directive), `${url}: ${directive}`);
      assert.ok(!csp.some((d) => d.includes('unsafe')), 'nothing unsafe');
    }
  });

  test('hashed assets are immutable for a year; a missing one is a JSON 404, never index.html', async () => {
    const res = await call(t.app, { method: 'GET', url: '/console/assets/index-Ab12_x.js' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, SCRIPT);
    assert.match(String(res.headers['content-type']), /^text\/javascript/);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    for (const url of [
      '/console/assets/index-Zz99.js',
      '/console/assets/..%2Findex.html',
      '/console/assets/sub/index-Ab12_x.js',
      '/console/assets/index-Ab12_x.exe',
    ]) {
      const missing = await call(t.app, { method: 'GET', url });
      assert.equal(missing.statusCode, 404, url);
      assert.equal(missing.json<{ error: string }>().error, 'not_found', url);
      assert.notEqual(missing.body, INDEX);
    }
  });

  test('none of it is in the API document; how the console signs in is', async () => {
    const doc = (await call(t.app, { method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    const paths = Object.keys(doc.paths);
    assert.deepEqual(
      paths.filter((p) => p.startsWith('/console') || p.startsWith('/api/auth/dev-oidc')),
      [],
    );
    assert.ok(paths.includes('/api/auth/console-config'));
  });
});

describe('the console before it is built, and with an outside provider', () => {
  let t: TestApp;
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-console-unbuilt-'));
  before(async () => {
    t = await buildTestApp({
      config: {
        consoleDir: empty,
        consoleOidc: { issuer: 'https://login.example.test/tenant/', clientId: 'console' },
      },
    });
  });
  after(async () => {
    await t.close();
    fs.rmSync(empty, { recursive: true, force: true });
  });

  test('a missing build is a 503 page that says to run npm run build', async () => {
    const res = await call(t.app, { method: 'GET', url: '/console/t/ten_x/' });
    assert.equal(res.statusCode, 503);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /npm run build/);
  });

  test("the provider's origin may be fetched (discovery, tokens), and the console is told where it is", async () => {
    const res = await call(t.app, { method: 'GET', url: '/console' });
    assert.match(
      String(res.headers['content-security-policy']),
      /connect-src 'self' https:\/\/login\.example\.test;/,
    );
    const config = await call(t.app, { method: 'GET', url: '/api/auth/console-config' });
    assert.deepEqual(config.json(), {
      issuer: 'https://login.example.test/tenant/',
      clientId: 'console',
      scope: 'openid email profile',
      development: false,
    });
  });
});
