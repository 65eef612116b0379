import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const SRC = path.resolve(import.meta.dirname, '../src');

/** The budgets of docs/client.md: what an app adds to its bundle for each entry, minified and gzipped. */
const BUDGETS = [
  { entry: '@svc/client', file: 'index.ts', maxBytes: 6 * 1024 },
  { entry: '@svc/client/realtime', file: 'realtime.ts', maxBytes: 12 * 1024 },
];

/** An entry as an app's bundler ships it to a browser: everything it imports (openapi-fetch too), minified. */
async function gzippedSize(file: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    entryPoints: [path.join(SRC, file)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  assert.ok(output, `esbuild wrote no bundle for ${file}`);
  return {
    minified: output.contents.byteLength,
    gzipped: gzipSync(output.contents, { level: 9 }).byteLength,
  };
}

for (const { entry, file, maxBytes } of BUDGETS) {
  test(`${entry} bundles (minified, gzipped) within ${maxBytes / 1024} KB`, async () => {
    const { minified, gzipped } = await gzippedSize(file);
    console.log(
      `bundle size ${entry}: ${minified} B minified, ${gzipped} B gzipped (${(gzipped / 1024).toFixed(2)} KB of ${maxBytes / 1024} KB)`,
    );
    assert.ok(gzipped <= maxBytes, `${entry} is ${gzipped} B gzipped, over its ${maxBytes} B budget`);
  });
}
