// A test process of scripts/run-tests.mjs: runs the test files the runner sends it (IPC), one after the
// other, in this one process, so the ~1,400 modules the files share are loaded once instead of once per
// file (about 2 s each). Each file's tests register with node:test's root as they would in a process of
// their own; the file is done when every top-level test and suite it registered has ended and the root's
// `after` hooks it added have run. Its results go back to the runner: counts, the spec reporter's lines,
// and whether the file failed. After each file, the environment variables it changed are put back and
// node:test's `mock` is reset. A process given one file only (files that need one to themselves) is the
// same as before: the runner starts it for that file.
//
// Started as `node --import tsx --test-reporter=<scripts/test-worker-reporter.mjs> scripts/test-worker.mjs`.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { spec as SpecReporter } from 'node:test/reporters';
import { setImmediate as tick } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const nodeTest = require('node:test');

/** The file being run: what its tests registered and what the reporter saw of them. */
let current;
let hooksRunning = 0;

// The reporter (test-worker-reporter.mjs) runs in this process and hands every event here.
globalThis[Symbol.for('svc.test-worker')] = {
  event(event) {
    if (current === undefined) return this.warm?.(event);
    current.events.push(event);
    const { type, data } = event;
    if (type === 'test:enqueue' && data.nesting === 0) current.enqueued++;
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0) current.ended++;
    if (type === 'test:pass' || type === 'test:fail') count(current.counts, type, data);
  },
};

/** As node's test runner counts them for its summary (suites apart from tests). */
function count(counts, type, data) {
  if (data.details?.type === 'suite') {
    counts.suites++;
    if (type === 'test:fail') counts.failedSuites++;
    return;
  }
  counts.tests++;
  if (data.skip !== undefined && data.skip !== false) counts.skipped++;
  else if (data.todo !== undefined && data.todo !== false) counts.todo++;
  else if (data.details?.error?.failureType === 'cancelledByParent') counts.cancelled++;
  else if (type === 'test:fail') counts.failed++;
  else counts.passed++;
}

// `after` hooks on the root run once its queue is empty: the file is not done until they have. A root
// hook's failure is seen here (node's test runner would report it only when the process exits).
const after = nodeTest.after;
nodeTest.after = (fn, options) =>
  after(async function (...args) {
    hooksRunning++;
    try {
      return await fn.apply(this, args);
    } catch (error) {
      current?.errors.push(`an after hook failed: ${error instanceof Error ? error.stack : String(error)}`);
      throw error;
    } finally {
      hooksRunning--;
    }
  }, options);
syncBuiltinESMExports();

// Node's test runner fails the test that was running, or the process if none was: the file fails here.
// One thrown between files goes to the next file, named so.
let between = [];
let previous = 'nothing';
const uncaught = (error) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (current === undefined)
    between.push(`thrown after ${previous} ended, before this file started: ${text}`);
  else current.errors.push(text);
};
process.on('uncaughtException', uncaught);
process.on('unhandledRejection', uncaught);

async function runFile(file) {
  const env = { ...process.env };
  current = {
    file,
    events: [],
    errors: between,
    enqueued: 0,
    ended: 0,
    counts: { tests: 0, suites: 0, passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0, failedSuites: 0 },
  };
  between = [];
  const started = performance.now();
  const cpu = process.cpuUsage();
  let loadError;
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    loadError = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  await settled(current);
  restoreEnv(env);
  nodeTest.mock.reset();
  const done = current;
  current = undefined;
  previous = file;
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  const { counts } = done;
  const failed =
    loadError !== undefined ||
    counts.failed > 0 ||
    counts.failedSuites > 0 ||
    (exitCode !== undefined && exitCode !== 0) ||
    done.errors.length > 0 ||
    (counts.tests === 0 && counts.suites === 0);
  return {
    file,
    ms: Math.round(performance.now() - started),
    cpuMs: cpuMs(process.cpuUsage(cpu)),
    counts,
    failed,
    loadError,
    errors: done.errors,
    noTests: counts.tests === 0 && counts.suites === 0,
    report: await format(done.events),
  };
}

/**
 * Until every top-level test and suite the file registered has ended (the reporter saw as many end as
 * were queued: a file's `test`/`describe` calls queue theirs while it loads, before any can end) and its
 * root `after` hooks ran.
 */
async function settled(file) {
  const done = () => file.ended >= file.enqueued && hooksRunning === 0;
  for (let quiet = 0; quiet < 3; ) {
    // Not a loop of setImmediate while the tests run: that kept a core busy (CPU time of a run doubled).
    if (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    await tick();
    quiet = done() ? quiet + 1 : 0;
  }
}

/** CPU time of this process (every thread), user and system, in ms. */
function cpuMs({ user, system }) {
  return Math.round((user + system) / 1000);
}

function restoreEnv(env) {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (process.env[name] !== value) process.env[name] = value;
}

/** The spec reporter's text for the file's events. */
async function format(events) {
  const reporter = new SpecReporter();
  const chunks = [];
  reporter.on('data', (chunk) => chunks.push(String(chunk)));
  const ended = new Promise((resolve) => reporter.on('end', resolve));
  for (const event of events) {
    if (event.type !== 'test:enqueue' && event.type !== 'test:dequeue') reporter.write(event);
  }
  reporter.end();
  await ended;
  return chunks.join('');
}

// node:test sets up its reporters when the first test starts, asynchronously: done here with a test of
// the worker's own before any file, so a file's tests are queued as the file loads. Its events are not a
// file's.
const WARM_UP = 'svc test worker: reporters ready';
const warm = new Promise((resolve) => {
  globalThis[Symbol.for('svc.test-worker')].warm = (event) => {
    if (event.type === 'test:pass' && event.data.name === WARM_UP) resolve();
  };
});
nodeTest.test(WARM_UP, () => {});

let queue = warm;
process.on('message', (message) => {
  queue = queue.then(async () => {
    if (message.type === 'run') process.send({ type: 'result', ...(await runFile(message.file)) });
    else if (message.type === 'exit') process.exit(0);
  });
});
process.on('disconnect', () => process.exit(0));
