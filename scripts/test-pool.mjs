// The processes scripts/run-tests.mjs runs test files in (scripts/test-worker.mjs). TEST_CONCURRENCY slots
// (default 2, for this 2-core machine), each taking the next file from one queue. A slot keeps one
// process for its files, which then load the modules they share once instead of once per file; a file
// listed in ALONE gets a new process of its own, as every file did before. A process that had a failing
// file is not given another (what the failure left behind could fail the next file), nor one that ran
// RECYCLE_AFTER files (memory). A file that does not end within TEST_FILE_TIMEOUT_MS has its process
// killed and fails, named; a process that exits during a file fails that file.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Files that need a process to themselves, and why. In whole runs with every file sharing (issue #33),
 * only these failed for sharing; those that set process handlers, start the service or Redis and spawn
 * the CLI did not. TEST_FILES_ALONE=1 gives every file its own process, as before.
 */
export const ALONE = new Map([
  [
    'src/modules/webhooks/__tests__/units.test.ts',
    // compares ids minted in SQL for times 0 and 1 with newId's, whose time never goes back within a
    // process (src/core/ids.ts keeps the last one): after another file minted ids, newId gives now
    'newId is monotonic per process',
  ],
  [
    'test/platform/ids.test.ts',
    // mints ids at fixed times (2030-2032) and reads the times back: after another file minted ids at a
    // later time (a manual clock set ahead), the process's newId goes on from that time instead
    'newId is monotonic per process',
  ],
]);

const alone = (file) => ALONE.has(file) || process.env.TEST_FILES_ALONE === '1';

const RECYCLE_AFTER = Number(process.env.TEST_WORKER_FILES ?? 40);

/** Runs `files` (in that order from one queue); resolves to each file's result, as it ended. */
export async function runFiles(files, { root, env, onResult }) {
  const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2));
  const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 600_000);
  const queue = [...files];
  const results = [];
  const started = [];
  const start = () => {
    const worker = new TestProcess(root, env, timeoutMs);
    started.push(worker.gone);
    return worker;
  };
  async function slot() {
    let shared;
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const own = alone(file);
      if (!own && shared === undefined) shared = start();
      const worker = own ? start() : shared;
      const result = await worker.run(file);
      results.push(result);
      onResult(result);
      if (own || result.failed || worker.files >= RECYCLE_AFTER) {
        worker.close();
        if (!own) shared = undefined;
      }
    }
    shared?.close();
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, slot));
  // Waited for, so their CPU time counts in the runner's (`/usr/bin/time`).
  await Promise.all(started);
  return results;
}

let numbered = 0;

class TestProcess {
  files = 0;
  output = [];
  waiting;

  constructor(root, env, timeoutMs) {
    this.id = ++numbered;
    this.timeoutMs = timeoutMs;
    const script = path.join(root, 'scripts/test-worker.mjs');
    const reporter = pathToFileURL(path.join(root, 'scripts/test-worker-reporter.mjs')).href;
    this.child = spawn(
      process.execPath,
      [
        // Each test process starts PGlite's 9 MB WebAssembly module; V8's optimizing tier recompiled it in
        // the background for about a second of CPU per process, more than the tests' statements won back
        // (issue #33: a run's CPU time fell by a quarter).
        '--liftoff-only',
        // e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (not allowed in NODE_OPTIONS)
        ...(process.env.TEST_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        '--import',
        'tsx',
        `--test-reporter=${reporter}`,
        `--test-timeout=${timeoutMs}`,
        script,
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    this.child.stdout.on('data', (chunk) => this.output.push(chunk));
    this.child.stderr.on('data', (chunk) => this.output.push(chunk));
    this.child.on('message', (message) => {
      if (message.type === 'result') this.settle({ ...message, output: this.takeOutput() });
    });
    this.gone = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.settle(this.failure(`its process exited (${signal ?? `code ${code}`}) before the file ended`));
    });
  }

  /** Runs one file in this process; resolves to its result (never rejects). */
  run(file) {
    this.files++;
    this.file = file;
    this.startedAt = performance.now();
    return new Promise((resolve) => {
      this.waiting = resolve;
      if (this.exited) return this.settle(this.failure('its process had exited'));
      this.timer = setTimeout(() => {
        this.settle(this.failure(`did not end within ${this.timeoutMs} ms (TEST_FILE_TIMEOUT_MS): killed`));
        this.child.kill('SIGKILL');
      }, this.timeoutMs);
      this.child.send({ type: 'run', file });
    });
  }

  failure(reason) {
    return {
      file: this.file,
      ms: Math.round(performance.now() - this.startedAt),
      failed: true,
      reason,
      counts: undefined,
      report: '',
      errors: [],
      output: this.takeOutput(),
    };
  }

  settle(result) {
    const resolve = this.waiting;
    if (resolve === undefined) return;
    this.waiting = undefined;
    clearTimeout(this.timer);
    resolve({ ...result, process: this.id, shared: !alone(this.file) });
  }

  takeOutput() {
    const text = Buffer.concat(this.output).toString('utf8');
    this.output = [];
    return text;
  }

  close() {
    if (this.exited) return;
    this.exited = true;
    if (this.child.connected) this.child.send({ type: 'exit' });
    else this.child.kill('SIGKILL');
  }
}
