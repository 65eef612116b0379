#!/usr/bin/env node
// `npm test`: every *.test.ts under test/, src/ and packages/*/test/, with node's test runner (node:test)
// and tsx's loader, in a few long-lived processes that run one file after another (scripts/test-pool.mjs,
// scripts/test-worker.mjs): the files share the ~1,400 modules they load instead of loading them once each.
// Files that need a process of their own get one (ALONE in test-pool.mjs). Each file's results print as it
// ends, then the totals, every failed file and the slowest files; the exit code is non-zero when a test
// failed, or a file failed to load, crashed its process or did not end in TEST_FILE_TIMEOUT_MS. Arguments
// are substrings of the files to run. With DATABASE_URL set, migrations are applied once first so test
// files never race on them. Before the files, test/support/prepare-run.ts makes what their databases
// start from (once per run). Each file's time orders the next run, slowest first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFiles } from './test-pool.mjs';

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

const started = Date.now();
const results = await runFiles(files, { root, env, onResult: printResult });
const failed = results.filter((r) => r.failed);
printTotals(results, failed);
reportTimes(results, Date.now() - started);
process.exit(failed.length > 0 ? 1 : 0);

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

/** One file's results, as it ends: its tests (the spec reporter's lines), then what it printed. */
function printResult(result) {
  const counts = result.counts;
  const summary =
    (counts === undefined ? '' : `, ${counts.tests} tests`) +
    (result.cpuMs === undefined ? '' : `, CPU ${(result.cpuMs / 1000).toFixed(1)} s`);
  const where = result.shared ? `shared process ${result.process}` : `own process ${result.process}`;
  const mark = result.failed ? '✖ FAILED' : '#';
  console.log(`\n${mark} ${result.file} (${seconds(result.ms).trim()}${summary}, ${where})`);
  if (result.report !== '') process.stdout.write(result.report);
  if (result.output !== '') process.stdout.write(result.output);
  if (result.loadError !== undefined) console.log(`  could not load: ${result.loadError}`);
  if (result.noTests) console.log('  no tests ran');
  for (const error of result.errors) console.log(`  uncaught: ${error}`);
  if (result.reason !== undefined) console.log(`  ✖ ${result.reason}`);
}

/** The totals of the run, as node's test runner prints them, then every file that failed and why. */
function printTotals(results, failed) {
  const total = { tests: 0, suites: 0, passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 };
  for (const { counts } of results) {
    if (counts === undefined) continue;
    for (const key of Object.keys(total)) total[key] += counts[key];
  }
  console.log(`\nℹ files ${results.length} (failed ${failed.length})`);
  console.log(
    `ℹ tests ${total.tests}\nℹ suites ${total.suites}\nℹ pass ${total.passed}\nℹ fail ${total.failed}`,
  );
  console.log(`ℹ cancelled ${total.cancelled}\nℹ skipped ${total.skipped}\nℹ todo ${total.todo}`);
  console.log(`ℹ duration_ms ${Date.now() - started}`);
  const cpu = results.reduce((sum, result) => sum + (result.cpuMs ?? 0), 0);
  console.log(`ℹ test processes' CPU while running files ${(cpu / 1000).toFixed(1)} s`);
  for (const result of failed) {
    const why = result.reason ?? (result.loadError === undefined ? 'failing tests' : 'could not load');
    console.log(`✖ failed: ${result.file} (${why})`);
  }
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`.padStart(8);
}

/** Prints the slowest files of this run and keeps every file's time for the next run's order. */
function reportTimes(results, wallMs) {
  const times = new Map(results.map((result) => [result.file, result.ms]));
  const slowest = [...times].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_LISTED);
  console.log(
    `\nslowest test files (of ${times.size}; from the file's start in its process, own processes include node's start):`,
  );
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
