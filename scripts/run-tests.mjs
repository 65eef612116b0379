#!/usr/bin/env node
// `npm test`: every *.test.ts under test/, src/ and packages/*/test/, through node's test runner with tsx's loader.
// With DATABASE_URL set, migrations are applied once first so test files never race on them. Before the
// files, test/support/prepare-run.ts makes what their databases start from (once per run). After them,
// the slowest files are listed with their times; those times order the next run, slowest first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const filter = process.argv.slice(2);
const timesCache = path.join(root, 'node_modules/.cache/svc/test-times.json');
const SLOWEST_LISTED = 20;

function collect(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : collect(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** File (relative to the root) -> milliseconds its process ran, from earlier runs. */
function readTimes() {
  try {
    return JSON.parse(fs.readFileSync(timesCache, 'utf8'));
  } catch {
    return {};
  }
}

const packageTests = fs.existsSync(path.join(root, 'packages'))
  ? fs
      .readdirSync(path.join(root, 'packages'))
      .flatMap((name) => collect(path.join(root, 'packages', name, 'test')))
  : [];
let files = [...collect(path.join(root, 'test')), ...collect(path.join(root, 'src')), ...packageTests].sort();
// Multi-instance suites need the PostgreSQL server and Redis; `npm run test:multi` runs them (CI does).
if (filter.length > 0) files = files.filter((f) => filter.some((part) => f.includes(part)));
else files = files.filter((f) => !f.includes('multi-instance'));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
files = files.map((f) => path.relative(root, f));

// The slowest first, so the run does not end waiting on one long file started last; files with no time
// yet (new ones) before all others, since nothing says they are quick.
const known = readTimes();
const expected = (file) => known[file] ?? Number.MAX_SAFE_INTEGER;
files.sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));

const env = {
  ...process.env,
  SVC_ENV: process.env.SVC_ENV ?? 'test',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
};

if (process.env.DATABASE_URL) {
  const migrated = spawnSync(process.execPath, [path.join(root, 'bin/svc.mjs'), 'migrate'], {
    stdio: 'inherit',
  });
  if (migrated.status !== 0) process.exit(migrated.status ?? 1);
}
// Only when it may be missing: several files starting together would each make it (one file makes it
// itself at no extra cost; on the PostgreSQL server, isolated databases make their template when asked).
if (files.length > 1 && !process.env.DATABASE_URL && !embeddedImageIsCurrent()) {
  const prepared = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/prepare-run.ts'], {
    stdio: 'inherit',
    cwd: root,
    env,
  });
  if (prepared.status !== 0) process.exit(prepared.status ?? 1);
}

const run = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-run-'));
const timesFile = path.join(run, 'times.jsonl');
const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    // Each file's process starts PGlite's 9 MB WebAssembly module anew; V8's optimizing tier recompiled
    // it in the background for about a second of CPU per file, more than a test file's statements ever
    // won back (issue #33: a run's CPU time fell by a quarter). The test runner passes it to each file.
    '--liftoff-only',
    '--import',
    'tsx',
    '--import',
    pathToFileURL(path.join(root, 'scripts/test-file-timer.mjs')).href,
    '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    `--test-timeout=${process.env.TEST_FILE_TIMEOUT_MS ?? '600000'}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', cwd: root, env: { ...env, SVC_TEST_TIMES_FILE: timesFile } },
);
reportTimes(timesFile, Date.now() - started);
fs.rmSync(run, { recursive: true, force: true });
process.exit(result.status ?? 1);

/**
 * Whether an image of the migrated database (src/core/db/pglite-template.ts) for this PGlite version was
 * made after every migration file changed. Naming the exact image would mean loading the whole app for
 * its list of migrations, seconds of every run.
 */
function embeddedImageIsCurrent() {
  try {
    const pglite = path.join(root, 'node_modules/@electric-sql/pglite/package.json');
    const prefix = `pgdata-image-${JSON.parse(fs.readFileSync(pglite, 'utf8')).version}-`;
    const cache = path.join(root, 'node_modules/.cache/svc');
    const images = fs
      .readdirSync(cache)
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tar'))
      .map((name) => fs.statSync(path.join(cache, name)).mtimeMs);
    return images.length > 0 && Math.max(...images) > newestMigration();
  } catch {
    return false;
  }
}

/** The newest change to a migration: the core folder's, and every `migrations` folder under src/. */
function newestMigration() {
  const folders = [path.join(root, 'migrations')];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      if (entry.name === 'migrations') folders.push(full);
      else walk(full);
    }
  };
  walk(path.join(root, 'src'));
  let newest = 0;
  for (const folder of folders) {
    newest = Math.max(newest, fs.statSync(folder).mtimeMs);
    for (const name of fs.readdirSync(folder))
      newest = Math.max(newest, fs.statSync(path.join(folder, name)).mtimeMs);
  }
  return newest;
}

/** Prints the slowest files of this run and keeps every file's time for the next run's order. */
function reportTimes(file, wallMs) {
  const times = new Map();
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
  for (const line of lines) {
    if (line === '') continue;
    const entry = JSON.parse(line);
    const relative = path.relative(root, entry.file);
    if (files.includes(relative)) times.set(relative, entry.ms);
  }
  const slowest = [...times].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_LISTED);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  console.log(`\nslowest test files (of ${times.size}; each file's process, start of node included):`);
  for (const [name, ms] of slowest) console.log(`${seconds(ms)}  ${name}`);
  const busy = [...times.values()].reduce((sum, ms) => sum + ms, 0);
  const load = os.loadavg().map((n) => n.toFixed(2));
  console.log(
    `wall ${seconds(wallMs).trim()} for ${files.length} files (sum of file times ${seconds(busy).trim()}),` +
      ` concurrency ${process.env.TEST_CONCURRENCY ?? '2'}, load average ${load.join(' ')}`,
  );
  try {
    fs.mkdirSync(path.dirname(timesCache), { recursive: true });
    const partial = `${timesCache}.${process.pid}`;
    fs.writeFileSync(partial, JSON.stringify({ ...readTimes(), ...Object.fromEntries(times) }, null, 1));
    fs.renameSync(partial, timesCache);
  } catch {
    // the order of the next run is only a speed-up
  }
}
