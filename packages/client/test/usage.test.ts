import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createTestTenant } from '../../../test/factories.ts';
import { buildTestApp } from '../../../test/helper.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const USAGE = path.join(FIXTURES, 'usage.ts');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** tsc on a tsconfig: its exit code and what it printed. */
async function typecheck(tsconfig: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', tsconfig], { cwd: ROOT });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, output: failed.stdout ?? String(error) };
  }
}

describe("the typed client in an app: the fixtures that are docs/client.md's examples", () => {
  test('compiles against the OpenAPI document, and its wrong body is a compile error', async () => {
    // The fixture itself: tsc also fails here if the `@ts-expect-error` line stopped being an error.
    const compiled = typecheck(path.join(FIXTURES, 'tsconfig.json'));
    // The browser snippet, with the DOM's types and none of Node's.
    const browser = typecheck(path.join(FIXTURES, 'tsconfig.browser.json'));
    // The same file without the `@ts-expect-error`: the wrong body must be reported on that line.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-client-usage-'));
    try {
      const source = fs.readFileSync(USAGE, 'utf8');
      const lines = source.split('\n');
      const expectLine = lines.findIndex((line) => line.includes('@ts-expect-error'));
      assert.ok(expectLine >= 0, 'usage.ts has a @ts-expect-error line');
      fs.writeFileSync(path.join(dir, 'usage.ts'), lines.filter((_, i) => i !== expectLine).join('\n'));
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: path.join(FIXTURES, 'tsconfig.json'),
          compilerOptions: { typeRoots: [path.join(ROOT, 'node_modules/@types')] },
          files: [path.join(dir, 'usage.ts')],
        }),
      );
      const [ok, inBrowser, wrong] = await Promise.all([
        compiled,
        browser,
        typecheck(path.join(dir, 'tsconfig.json')),
      ]);
      assert.equal(ok.code, 0, ok.output);
      assert.equal(inBrowser.code, 0, inBrowser.output);
      assert.notEqual(wrong.code, 0);
      assert.match(
        wrong.output,
        new RegExp(`usage\\.ts\\(${expectLine + 1},\\d+\\): error TS\\d+`),
        wrong.output,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('docs/client.md shows the fixtures as they are compiled', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/client.md'), 'utf8');
    for (const name of ['usage.ts', 'browser.ts']) {
      const source = fs.readFileSync(path.join(FIXTURES, name), 'utf8').trimEnd();
      assert.ok(
        doc.includes(`\`\`\`ts\n${source}\n\`\`\``),
        `docs/client.md differs from test/fixtures/${name}: copy it over`,
      );
    }
  });

  test('runs against the service and does what it says', async () => {
    const t = await buildTestApp();
    try {
      const tenant = await createTestTenant(t);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', USAGE], {
        cwd: ROOT,
        env: {
          ...process.env,
          SVC_URL: `http://127.0.0.1:${port}`,
          SVC_API_KEY: tenant.apiKey,
          // `@svc/client` from the sources (the fixture's paths), not from a build that may be older.
          TSX_TSCONFIG_PATH: path.join(FIXTURES, 'tsconfig.json'),
        },
      });
      assert.match(stdout, /^room \S+ \(of 1\)$/m);
      assert.match(stdout, /^messages: Doors open at 8$/m);
      assert.match(stdout, /^bid 1500 leads: 1500$/m);
      assert.match(stdout, /^payment pay_\S+: succeeded$/m);
      assert.match(stdout, /^webhook \S+$/m);
      assert.match(stdout, /^404 not_found \(request \S+\)$/m);
    } finally {
      await t.close();
    }
  });
});
