#!/usr/bin/env node
// The client SDK's build (packages/client, `@svc/client`), run by `npm run build` and so by `npm ci`:
// one ES module per entry point (esbuild; `openapi-fetch`, `yjs` and `y-websocket` stay imports, they
// are the package's dependencies) and its `.d.ts` (tsc, declarations only, from packages/client/tsconfig.json).
// Like the service's build, it checks nothing: a type error is printed and the declarations written anyway
// (`npm run typecheck` and the client's tests are where types fail).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const pkg = path.join(root, 'packages/client');
const outdir = path.join(pkg, 'dist');

/** The entries `package.json` exports; one not written yet is left out rather than stopping the build. */
const ENTRIES = ['index', 'realtime', 'sync'];
export const CLIENT_EXTERNAL = ['openapi-fetch', 'yjs', 'y-websocket', 'y-protocols', 'lib0'];

export async function buildClient() {
  fs.rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(
    ENTRIES.map((name) => [name, path.join(pkg, 'src', `${name}.ts`)]).filter(([, file]) =>
      fs.existsSync(file),
    ),
  );
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: CLIENT_EXTERNAL,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: true,
    logLevel: 'warning',
  });
  const tsc = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(pkg, 'tsconfig.json')],
    { stdio: 'inherit' },
  );
  if (tsc.status !== 0)
    console.warn('@svc/client: tsc reported errors; the declarations were written anyway');
  // The generated types are a .d.ts already: tsc leaves them where they are, the declarations import them.
  fs.mkdirSync(path.join(outdir, 'generated'), { recursive: true });
  fs.copyFileSync(path.join(pkg, 'src/generated/openapi.d.ts'), path.join(outdir, 'generated/openapi.d.ts'));
}

if (import.meta.url === `file://${process.argv[1]}`) await buildClient();
