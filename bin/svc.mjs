#!/usr/bin/env node
// The `svc` command. Runs the compiled service in dist/ (see scripts/build.mjs, run by `npm ci`) while it
// is newer than every source file; otherwise, as after an edit, the TypeScript sources through tsx's
// loader, so no build step is ever required.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** The newest modification under `dir`, folders included (a deleted file changes its folder's time). */
function newestChange(dir) {
  let newest = fs.statSync(dir).mtimeMs;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const changed = entry.isDirectory() ? newestChange(full) : fs.statSync(full).mtimeMs;
    if (changed > newest) newest = changed;
  }
  return newest;
}

function builtIsCurrent() {
  try {
    return fs.statSync(path.join(root, 'dist/BUILT')).mtimeMs > newestChange(path.join(root, 'src'));
  } catch {
    return false;
  }
}

let cli;
if (builtIsCurrent()) {
  cli = await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli.ts');
}
process.exitCode = await cli.main(process.argv.slice(2));
