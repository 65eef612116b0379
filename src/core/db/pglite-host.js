// @ts-check
// The embedded database's thread. PGlite runs PostgreSQL compiled to WebAssembly: every statement is
// synchronous CPU work on the thread that calls it. Here, in a worker thread, it leaves the main thread to
// HTTP, WebSocket frames and JSON while statements run, and on a machine with two cores both run at once.
//
// Plain JavaScript on purpose: a worker does not inherit the TypeScript loader the CLI registers, and
// this file is the whole of what runs here. The other side of every message is pglite-client.ts.
//
// Messages in (each with a numeric `id`, answered once with `{ id, result }` or `{ id, error }`):
//   { op: 'query', sql, params, tx? }   one statement; inside transaction `tx` when given
//   { op: 'exec', sql, tx? }            statements without parameters
//   { op: 'begin', tx, setup? }         opens transaction `tx` (answered once it is open)
//   { op: 'commit' | 'rollback', tx }   ends it
//   { op: 'tenantQuery', tenant, setup, sql, params }  one statement as tenant `tenant` (see below)
//   { op: 'dump' }                      the data directory as an uncompressed tarball (after a checkpoint)
//   { op: 'releaseMemory' }             this thread's heap collected for low memory: { before, after } bytes
//   { op: 'close' }
// A thread started ahead of time (`prewarmPgliteThread`, no `dataDir` in workerData) first compiles (or takes)
// PGlite's WebAssembly, then waits for { op: 'open', dataDir, startParams, sessionReset } before it opens.
// Work runs one request at a time in arrival order; an open transaction holds the line until it ends
// (its own requests go to it directly).
//
// Tenant statements run without a transaction around them, as PostgreSQL's own connections for tenant
// reads do (postgres.ts): the one connection's session is made the tenant's by `setup` (role and tenant
// setting, session-wide) when the tenant changes, and made the owner's again by `workerData.sessionReset`
// before any other request. A tenant statement for the tenant of the one before it is then one statement,
// instead of BEGIN, the setup, the statement and COMMIT.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

/** @typedef {{ id: number, op: string, sql?: string, params?: unknown[], tx?: number, setup?: string, tenant?: string }} Request */

/**
 * An error as plain data: structured cloning keeps only an Error's message, so PostgreSQL's fields
 * (`code`, `constraint`, `detail`...) travel as properties.
 * @param {unknown} error
 */
function plainError(error) {
  if (!(error instanceof Error)) return { message: String(error) };
  /** @type {Record<string, unknown>} */
  const fields = { message: error.message, name: error.name, stack: error.stack };
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return fields;
}

/**
 * V8's collection for low memory on this thread's heap, as src/core/ops/idle-memory.ts does on the main
 * thread (this plain script cannot import it): the heap's size before and after, in bytes.
 * @returns {Promise<{ before: number, after: number }>}
 */
function collectLowMemoryGarbage() {
  const before = v8.getHeapStatistics().total_heap_size;
  return new Promise((resolve) => {
    const session = new Session();
    session.connect();
    session.post('HeapProfiler.collectGarbage', () => {
      setImmediate(() => session.disconnect());
      resolve({ before, after: v8.getHeapStatistics().total_heap_size });
    });
  });
}

/** @param {{ rows: unknown[], affectedRows?: number }} result */
function plainResult(result) {
  return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
}

/**
 * The requests of one open transaction, taken in order by the transaction's callback.
 * @typedef {{ pending: Request[], wake: (() => void) | undefined }} Inbox
 */
/** @type {Map<number, Inbox>} */
const inboxes = new Map();

/** @param {Inbox} inbox @returns {Promise<Request>} */
async function nextRequest(inbox) {
  while (inbox.pending.length === 0) {
    await new Promise((resolve) => {
      inbox.wake = () => resolve(undefined);
    });
  }
  return /** @type {Request} */ (inbox.pending.shift());
}

/** @param {number} id @param {() => Promise<unknown>} work */
async function answer(id, work) {
  try {
    port.postMessage({ id, result: await work() });
  } catch (error) {
    port.postMessage({ id, error: plainError(error) });
  }
}

/**
 * Transaction `begin.tx`: open, then serve its requests until commit or rollback.
 * @param {PGlite} pg @param {Request} begin @param {Inbox} inbox
 */
async function runTransaction(pg, begin, inbox) {
  let opened = false;
  /** @type {Request | undefined} the commit or rollback that ends it */
  let closing;
  try {
    await pg.transaction(async (tx) => {
      if (begin.setup !== undefined) await tx.exec(begin.setup);
      opened = true;
      port.postMessage({ id: begin.id, result: null });
      for (;;) {
        const request = await nextRequest(inbox);
        if (request.op === 'commit' || request.op === 'rollback') {
          closing = request;
          // PGlite commits when this callback returns without a rollback.
          if (request.op === 'rollback') await tx.rollback();
          return;
        }
        await answer(request.id, async () => {
          if (request.op === 'query')
            return plainResult(await tx.query(/** @type {string} */ (request.sql), request.params ?? []));
          await tx.exec(/** @type {string} */ (request.sql));
          return null;
        });
      }
    });
    if (closing !== undefined) port.postMessage({ id: closing.id, result: null });
  } catch (error) {
    // The setup failed (the transaction never opened), or COMMIT or ROLLBACK did.
    const request = opened ? closing : begin;
    if (request !== undefined) port.postMessage({ id: request.id, error: plainError(error) });
  } finally {
    inboxes.delete(/** @type {number} */ (begin.tx));
    // Requests that arrived for a transaction that had already failed.
    for (const late of inbox.pending) {
      port.postMessage({ id: late.id, error: { message: `transaction ${begin.tx} is closed` } });
    }
  }
}

/** One request at a time, in arrival order: each waits for the one before it to settle. */
let line = Promise.resolve();
/** @param {() => Promise<void>} work */
function inLine(work) {
  line = line.then(work, work);
}

/** @param {PGlite} pg @param {string} sessionReset */
function serve(pg, sessionReset) {
  /** The tenant the session is set up for, if any (see the top of this file). */
  /** @type {string | undefined} */
  let sessionTenant;
  const asOwner = async () => {
    if (sessionTenant === undefined) return;
    sessionTenant = undefined;
    await pg.exec(sessionReset);
  };
  /** @param {Request} request */
  const asTenant = async (request) => {
    if (sessionTenant === request.tenant) return;
    sessionTenant = undefined;
    await pg.exec(/** @type {string} */ (request.setup));
    sessionTenant = request.tenant;
  };

  port.on('message', (/** @type {Request} */ request) => {
    if (request.tx !== undefined && request.op !== 'begin') {
      const inbox = inboxes.get(request.tx);
      if (inbox === undefined) {
        port.postMessage({ id: request.id, error: { message: `transaction ${request.tx} is closed` } });
        return;
      }
      inbox.pending.push(request);
      inbox.wake?.();
      inbox.wake = undefined;
      return;
    }
    switch (request.op) {
      case 'begin': {
        /** @type {Inbox} */
        const inbox = { pending: [], wake: undefined };
        inboxes.set(/** @type {number} */ (request.tx), inbox);
        inLine(async () => {
          try {
            await asOwner();
          } catch (error) {
            inboxes.delete(/** @type {number} */ (request.tx));
            port.postMessage({ id: request.id, error: plainError(error) });
            return;
          }
          await runTransaction(pg, request, inbox);
        });
        return;
      }
      case 'query':
        inLine(() =>
          answer(request.id, async () => {
            await asOwner();
            return plainResult(await pg.query(/** @type {string} */ (request.sql), request.params ?? []));
          }),
        );
        return;
      case 'exec':
        inLine(() =>
          answer(request.id, async () => {
            await asOwner();
            await pg.exec(/** @type {string} */ (request.sql));
            return null;
          }),
        );
        return;
      case 'tenantQuery':
        inLine(() =>
          answer(request.id, async () => {
            await asTenant(request);
            return plainResult(await pg.query(/** @type {string} */ (request.sql), request.params ?? []));
          }),
        );
        return;
      case 'dump':
        inLine(() =>
          answer(request.id, async () => {
            await asOwner();
            // Everything written so far in the data files, so the copy starts without replaying WAL.
            await pg.exec('checkpoint');
            return new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer());
          }),
        );
        return;
      case 'releaseMemory':
        inLine(() => answer(request.id, collectLowMemoryGarbage));
        return;
      case 'close':
        inLine(() =>
          answer(request.id, async () => {
            await pg.close();
            return null;
          }),
        );
        return;
      default:
        port.postMessage({ id: request.id, error: { message: `unknown request ${request.op}` } });
    }
  });
}

/** @typedef {{ dataDir: string, startParams: string[], sessionReset: string, image?: Uint8Array }} OpenRequest */

// PGlite's 9 MB module: as an earlier thread of this process compiled it (pglite-client.ts), else compiled
// here while the thread waits for what to open (see the top of this file).
const compiledHere = !(workerData.wasmModule instanceof WebAssembly.Module);
const compiling = !compiledHere
  ? Promise.resolve(workerData.wasmModule)
  : WebAssembly.compile(fs.readFileSync(new URL(import.meta.resolve('@electric-sql/pglite/pglite.wasm'))));
// Not an unhandled rejection before it is awaited: the open below reports it.
compiling.catch(() => {});

/** @returns {Promise<OpenRequest>} */
function openRequest() {
  if (workerData.dataDir !== undefined) return Promise.resolve(workerData);
  return new Promise((resolve) => port.once('message', resolve));
}

try {
  const { dataDir, startParams, sessionReset, image } = await openRequest();
  const pg = await PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, ...startParams],
    pgliteWasmModule: await compiling,
    ...(image === undefined ? {} : { loadDataDir: new Blob([image]) }),
  });
  serve(pg, sessionReset);
  // Shared, not copied: later threads of this process start from it.
  port.postMessage({ ready: true, wasmModule: await compiling, compiledHere });
} catch (error) {
  port.postMessage({ ready: false, error: plainError(error) });
}
