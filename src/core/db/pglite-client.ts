import { Worker } from 'node:worker_threads';
import type { Queryable, QueryResult } from './database.ts';

/**
 * The embedded database, run on its own thread (pglite-host.js): the main thread sends statements and
 * awaits their answers, and serves HTTP and WebSocket traffic while PostgreSQL works. Statements outside a
 * transaction are sent at once and queue in the worker, so the worker is never idle waiting for the next.
 */
export interface PgliteThread extends Queryable {
  /** BEGIN; `setup`; fn's statements; COMMIT, or ROLLBACK when fn throws (with fn's error). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, setup?: string): Promise<T>;
  /**
   * One statement as tenant `tenant`, outside a transaction: `setup` makes the session the tenant's when
   * the statement before was not the same tenant's (see pglite-host.js), `sessionReset` undoes it.
   */
  tenantQuery<Row>(
    tenant: { id: string; setup: string },
    sql: string,
    params: readonly unknown[],
  ): Promise<QueryResult<Row>>;
  /** The data directory as a tarball, after a checkpoint: what `image` starts another database from. */
  dump(): Promise<Uint8Array>;
  /** The thread's heap collected for low memory, between statements; its size before and after. */
  releaseMemory(): Promise<{ before: number; after: number }>;
  close(): Promise<void>;
}

/** The thread's first message: PGlite is open, or why not; with the module it ran (see `compiledModule`). */
interface Ready {
  ready: boolean;
  error?: Record<string, unknown>;
  wasmModule?: unknown;
  /** Whether this thread compiled the module (else it got it from an earlier one). */
  compiledHere?: boolean;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: Record<string, unknown>;
}

/** PostgreSQL's error fields (`code`, `constraint`...) back on an Error, as the driver raised them. */
function errorFrom(fields: Record<string, unknown>): Error {
  const error = new Error(String(fields.message));
  for (const [key, value] of Object.entries(fields)) {
    if (key !== 'message' && key !== 'stack') Object.defineProperty(error, key, { value, enumerable: true });
  }
  return error;
}

export interface PgliteThreadOptions {
  /** Added to PGlite's own start parameters. */
  startParams: readonly string[];
  /** Makes the session its owner's again after tenant statements (see `tenantQuery`). */
  sessionReset: string;
  /** A `dump()` of another database to start from instead of `initdb` (`memory://` only; handed over). */
  image?: Uint8Array;
}

function ownsBuffer(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return (
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength
  );
}

/**
 * PGlite's WebAssembly as the first thread of this process compiled it (it sends it with its `ready`).
 * Every later thread starts from it instead of compiling the 9 MB module again: ~100 ms of CPU and
 * another copy of its code per database (tests open hundreds; a template's thread is a second one).
 */
let compiledModule: unknown;
let compilations = 0;

/** How many database threads of this process compiled PGlite's module themselves (one, once shared). */
export function pgliteCompilations(): number {
  return compilations;
}

function newThread(data: Record<string, unknown>, transferList: ArrayBuffer[] = []): Worker {
  const workerData = compiledModule === undefined ? data : { ...data, wasmModule: compiledModule };
  return new Worker(new URL('./pglite-host.js', import.meta.url), {
    workerData,
    // Moved, not copied (tens of MB), when the bytes are the whole of their buffer.
    transferList,
    // Not the process's own flags (a loader such as tsx, `--input-type`): the thread runs one plain script.
    execArgv: [],
    // V8 grows a thread's young generation to tens of MiB under a steady stream of short-lived objects
    // (here: every result's rows), all of it resident afterwards. 2 MiB (1 MiB semi-spaces) costs the
    // thread more frequent but smaller scavenges: the rows of one result rarely outlive the next one.
    // 8 MiB held an idle instance ~6 MiB more and ~40 MiB less than V8's default (docs/operations.md);
    // bench:rooms measured no difference in statements per second between 8 and 2.
    resourceLimits: { maxYoungGenerationSizeMb: 2 },
  });
}

/** A thread started by `prewarmPgliteThread`, until a `startPgliteThread` takes it (or it failed). */
let prewarmed: { worker: Worker; failed: boolean } | undefined;

/**
 * Starts the next database thread now, before what it opens is known: it loads PGlite and compiles its
 * WebAssembly (a few hundred ms of its own CPU) while this thread does other work, e.g. `svc start` loading
 * the service before it makes a new data directory. The next `startPgliteThread` (without `image`) takes
 * it. Unused, it does not keep the process alive.
 */
export function prewarmPgliteThread(): void {
  if (prewarmed !== undefined) return;
  const worker = newThread({});
  const slot = { worker, failed: false };
  const failed = () => {
    slot.failed = true;
  };
  worker.once('error', failed);
  worker.once('exit', failed);
  worker.unref();
  prewarmed = slot;
}

/** The prewarmed thread, told what to open; undefined when there is none (or it failed). */
function takePrewarmed(dataDir: string, options: PgliteThreadOptions): Worker | undefined {
  const slot = prewarmed;
  prewarmed = undefined;
  if (slot === undefined || slot.failed || options.image !== undefined) {
    if (slot !== undefined && !slot.failed) void slot.worker.terminate();
    return undefined;
  }
  slot.worker.ref();
  slot.worker.postMessage({ dataDir, startParams: options.startParams, sessionReset: options.sessionReset });
  return slot.worker;
}

/** Starts the thread and opens PGlite on `dataDir` (`memory://` for none). */
export async function startPgliteThread(
  dataDir: string,
  options: PgliteThreadOptions,
): Promise<PgliteThread> {
  const { image } = options;
  const worker =
    takePrewarmed(dataDir, options) ??
    newThread(
      { dataDir, startParams: options.startParams, sessionReset: options.sessionReset, image },
      image !== undefined && ownsBuffer(image) ? [image.buffer] : [],
    );
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let nextTx = 1;
  let stopped: Error | undefined;

  await new Promise<void>((resolve, reject) => {
    worker.once('message', (message: Ready) => {
      compiledModule ??= message.wasmModule;
      if (message.compiledHere === true) compilations += 1;
      if (message.ready) resolve();
      else reject(errorFrom(message.error ?? { message: 'the embedded database did not start' }));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the embedded database thread exited (${code})`)));
  });

  worker.on('message', (answer: Answer) => {
    const request = waiting.get(answer.id);
    if (request === undefined) return;
    waiting.delete(answer.id);
    // Idle, the thread does not keep the process alive (an unclosed test database in-process did not).
    if (waiting.size === 0) worker.unref();
    if (answer.error !== undefined) request.reject(errorFrom(answer.error));
    else request.resolve(answer.result);
  });
  const fail = (error: Error) => {
    stopped = new Error(`the embedded database thread stopped: ${error.message}`, { cause: error });
    for (const request of waiting.values()) request.reject(stopped);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
  worker.unref();

  function send<T>(message: Record<string, unknown>): Promise<T> {
    if (stopped !== undefined) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...message, id });
    });
  }

  function queryable(tx: number | undefined): Queryable {
    return {
      query: <Row>(sql: string, params: readonly unknown[] = []) =>
        send<QueryResult<Row>>({ op: 'query', sql, params, tx }),
      exec: (sql: string) => send<void>({ op: 'exec', sql, tx }),
    };
  }

  let closing: Promise<void> | undefined;
  return {
    ...queryable(undefined),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, setup?: string): Promise<T> {
      const tx = nextTx++;
      // The first statement follows BEGIN without waiting for its answer: the thread answers in order,
      // and a transaction that failed to open fails its statements too (the reason is BEGIN's answer).
      const began = send({ op: 'begin', tx, setup });
      began.catch(() => {});
      let result: T;
      try {
        result = await fn(queryable(tx));
      } catch (error) {
        await began;
        await send({ op: 'rollback', tx }).catch(() => {});
        throw error;
      }
      await began;
      await send({ op: 'commit', tx });
      return result;
    },
    tenantQuery: <Row>(tenant: { id: string; setup: string }, sql: string, params: readonly unknown[]) =>
      send<QueryResult<Row>>({ op: 'tenantQuery', tenant: tenant.id, setup: tenant.setup, sql, params }),
    dump: () => send<Uint8Array>({ op: 'dump' }),
    releaseMemory: () => send<{ before: number; after: number }>({ op: 'releaseMemory' }),
    close() {
      closing ??= (async () => {
        if (stopped === undefined) await send({ op: 'close' });
        await worker.terminate();
      })();
      return closing;
    },
  };
}
