#!/usr/bin/env node
// The `svc` command. Runs the compiled service in dist/ (see scripts/build.mjs, run by `npm ci`) while it
// is newer than every source file; otherwise, as after an edit, the TypeScript sources through tsx's
// loader, so no build step is ever required.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';

// The embedded database's WebAssembly (PGlite, 9 MB) runs as V8's baseline (Liftoff) code only. By default
// V8 also recompiles the functions that run often with its optimizing compiler (TurboFan) on background
// threads: at a start that is CPU taken from the start itself on a small machine, and its compilers' memory
// stays with the process's allocator afterwards (60-80 MiB of an idle instance's 250 MiB, measured with
// /proc/<pid>/smaps). Small statements cost the same either way; scans and sorts take ~25 % more CPU.
// A flag given to node (e.g. `node --no-liftoff-only bin/svc.mjs start`) wins. Set before any WebAssembly is
// compiled: V8 reads it when the database's thread compiles its module.
if (!process.execArgv.some((arg) => /liftoff|wasm-tier/.test(arg))) v8.setFlagsFromString('--liftoff-only');

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
  // Node runs module hooks on a thread of their own, which the first register() starts: an isolate that
  // compiles each source file once, then waits. Under that burst its young generation grows to 32 MiB and
  // stays resident. V8 reads the limit when an isolate is created, so 1 MiB semi-spaces for that one
  // (idle RSS 244 -> 226 MiB, start unchanged), then V8's default again. A flag given to node wins.
  const own = /semi-space/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
  if (!own) v8.setFlagsFromString('--max-semi-space-size=1');
  register();
  if (!own) v8.setFlagsFromString('--max-semi-space-size=0');
  cli = await import('../src/cli.ts');
}
process.exitCode = await cli.main(process.argv.slice(2));
