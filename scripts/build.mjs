#!/usr/bin/env node
// `npm run build`, also run by `npm ci` (`prepare`): the service's own TypeScript, from src/cli.ts down,
// compiled to plain JavaScript in dist/, so `svc` starts without compiling and loading ~200 files through
// tsx's loader (about half a second and 30 MiB of a start). Packages stay in node_modules; each dynamic
// import becomes its own chunk, so what a command does not use is still not loaded. Nothing is checked
// here (that is `npm run typecheck`): a build never stops an install.
//
// `bin/svc.mjs` runs dist/ only while it is newer than every file under src/; after an edit it runs the
// sources through tsx again until the next build.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

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

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: path.join(root, 'src/cli.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  // Every chunk directly in dist/, where the paths made by `sourceLocations` start from.
  chunkNames: '[name]-[hash]',
  plugins: [sourceLocations],
  logLevel: 'warning',
});
// Written last: bin/svc.mjs compares the sources with this file's time.
fs.writeFileSync(path.join(outdir, 'BUILT'), `${new Date().toISOString()}\n`);
