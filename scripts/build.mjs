#!/usr/bin/env node
// `npm run build`, also run by `npm ci` (`prepare`): the service's own TypeScript, from src/cli.ts down,
// compiled to plain JavaScript in dist/, so `svc` starts without compiling and loading ~200 files through
// tsx's loader (about half a second and 30 MiB of a start). The packages it imports are bundled in too:
// loaded from node_modules, resolving and reading their hundreds of files cost more than running them
// (`typebox` alone: 114 ms from its files, 10 ms bundled). Each dynamic import becomes its own chunk, so
// what a command does not use is still not loaded. Nothing is checked here (that is `npm run typecheck`):
// a build never stops an install.
//
// `bin/svc.mjs` runs dist/ only while it is newer than every file under src/; after an edit it runs the
// sources through tsx again until the next build.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { buildClient } from './build-client.mjs';
import { buildConsole } from './build-console.mjs';

const root = path.resolve(import.meta.dirname, '..');
// Another folder may be named (tests build into one of their own); paths to the sources stay right.
const outdir = path.resolve(process.argv[2] ?? path.join(root, 'dist'));

/**
 * `import.meta.url` names the source file it is written in, not the chunk it ends up in: files beside
 * the sources (migrations, the database thread's script) are found where they are, relative to dist/.
 */
const sourceLocations = {
  name: 'source-locations',
  setup(builder) {
    builder.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const contents = await fs.promises.readFile(args.path, 'utf8');
      if (!contents.includes('import.meta.url')) return { contents, loader: 'ts' };
      const fromDist = path.relative(outdir, args.path).split(path.sep).join('/');
      return {
        contents: contents.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(fromDist)}, import.meta.url).href`,
        ),
        loader: 'ts',
      };
    });
  },
};

/**
 * Packages left in node_modules: those that find their own files at run time (PGlite's WebAssembly and
 * data, which only the database thread's plain script loads), the lazily
 * loaded Stripe SDK, build tools, and the optional native add-ons that `pg` and `ws` try to load.
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  'stripe',
  'esbuild',
  'tsx',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
];

/**
 * Bundled CommonJS packages expect `require`, `__filename` and `__dirname`, which an ES module lacks;
 * `require` loads Node's own modules and the externals above. `__dirname` names the chunk's folder: the
 * two bundled packages that read it (ioredis to trim stack traces, @fastify/swagger for a package.json it
 * can do without) need no file there.
 */
const COMMONJS_GLOBALS = [
  "import { createRequire as __svcCreateRequire } from 'node:module';",
  "import { fileURLToPath as __svcFileURLToPath } from 'node:url';",
  "import { dirname as __svcDirname } from 'node:path';",
  'const require = __svcCreateRequire(import.meta.url);',
  'const __filename = __svcFileURLToPath(import.meta.url);',
  'const __dirname = __svcDirname(__filename);',
].join('\n');

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: path.join(root, 'src/cli.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: COMMONJS_GLOBALS },
  sourcemap: true,
  // Every chunk directly in dist/, where the paths made by `sourceLocations` start from.
  chunkNames: '[name]-[hash]',
  plugins: [sourceLocations],
  logLevel: 'warning',
});
// Written last: bin/svc.mjs compares the sources with this file's time.
fs.writeFileSync(path.join(outdir, 'BUILT'), `${new Date().toISOString()}\n`);

// The client SDK (packages/client) and the web console that uses it (console/) are built with the service,
// unless a test builds the service elsewhere.
if (process.argv[2] === undefined) {
  await buildClient();
  await buildConsole();
}
