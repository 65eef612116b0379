import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * One embedded data directory belongs to one process: a second process would corrupt it.
 *
 * The lock is a Unix domain socket that the owner listens on, `SVC_DATA_DIR/pglite.lock`. The kernel closes
 * a process's sockets when it ends, however it ends (exit, crash, `kill -9`), so the lock dies with its
 * process: a connection to it succeeds exactly while the owner lives, and a socket file left behind refuses
 * connections (ECONNREFUSED). That is proof the owner is gone, unlike a PID file, whose number another
 * process may hold after a reboot or in a container (PID 1). Binding is atomic (EADDRINUSE for the second),
 * it needs no native addon, and it works the same on Linux and macOS, and between containers that share the
 * folder through a volume (a socket file is reachable across mount namespaces). What no local lock does: two
 * hosts on one network file system do not see each other's socket; never share the folder between hosts.
 *
 * A socket path has a length limit (about 104 bytes on macOS, 108 on Linux, silently cut beyond it), so
 * a data directory with a longer path gets its socket in the temporary folder instead, named by a hash of
 * the directory's real path.
 */
export interface DirLock {
  /** Where the lock's socket is. */
  readonly path: string;
  release(): Promise<void>;
}

export const LOCK_FILE = 'pglite.lock';
/** Written by earlier versions: its PID proves nothing, so it is removed once the lock is held. */
const LEGACY_PID_FILE = 'pglite.pid';
const MAX_SOCKET_PATH_BYTES = 100;
/** How long a live owner has to say its PID before the refusal is written without it. */
const PID_ANSWER_MS = 5_000;
const ATTEMPTS = 5;

export function lockSocketPath(dataDir: string): string {
  const inside = path.join(dataDir, LOCK_FILE);
  if (Buffer.byteLength(inside) <= MAX_SOCKET_PATH_BYTES) return inside;
  const hash = createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, 24);
  return path.join(os.tmpdir(), `svc-pglite-${hash}.lock`);
}

type Holder = { state: 'live'; pid: number | undefined } | { state: 'stale' } | { state: 'absent' };

/** Takes the data directory's lock, or throws naming the process that holds it. `dataDir` must exist. */
export async function acquireDirLock(dataDir: string): Promise<DirLock> {
  const socketPath = lockSocketPath(dataDir);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end(`${JSON.stringify({ pid: process.pid })}\n`);
    });
    if (await listened(server, socketPath)) {
      // The lock must not keep the process running; it lasts as long as the process anyway.
      server.unref();
      fs.rmSync(path.join(dataDir, LEGACY_PID_FILE), { force: true });
      return { path: socketPath, release: () => closeServer(server) };
    }
    const holder = await probe(socketPath);
    if (holder.state === 'live') {
      const who = holder.pid === undefined ? 'another process' : `process ${holder.pid}`;
      throw new Error(
        `the embedded database in ${dataDir} is in use by ${who}; stop it or set SVC_DATA_DIR to another folder`,
      );
    }
    if (holder.state === 'stale') await takeOverStale(socketPath);
  }
  throw new Error(`could not take the lock ${socketPath} of the embedded database in ${dataDir}`);
}

/** True once `server` listens on `socketPath`; false when something is there already. */
function listened(server: net.Server, socketPath: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(new Error(`cannot create the lock ${socketPath}: ${error.message}`, { cause: error }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(true);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(socketPath);
  });
}

/** Closing the server removes its socket file (Node unlinks a Unix socket it listened on). */
function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}

/** Whether a process listens on `socketPath` (and its PID, when it says it in time). */
function probe(socketPath: string): Promise<Holder> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    let text = '';
    let connected = false;
    const done = (holder: Holder) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(holder);
    };
    const timer = setTimeout(() => done({ state: 'live', pid: undefined }), PID_ANSWER_MS);
    timer.unref();
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.on('end', () => done({ state: 'live', pid: pidIn(text) }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) return done({ state: 'live', pid: pidIn(text) });
      // ECONNREFUSED: a socket (or any file) nobody listens on; ENOENT: gone meanwhile.
      done(error.code === 'ENOENT' ? { state: 'absent' } : { state: 'stale' });
    });
  });
}

function pidIn(text: string): number | undefined {
  try {
    const { pid } = JSON.parse(text) as { pid?: unknown };
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes a socket file whose owner is gone. Two processes may find the same stale file at once, and the
 * faster one may already listen on a new socket at that path when the slower one removes "the stale file".
 * So the file is first renamed away (atomic: each rename takes whatever is at the path then), checked again
 * under its new name, and put back with `link` (which never replaces anything) if it turns out to be live.
 */
async function takeOverStale(socketPath: string): Promise<void> {
  const moved = `${socketPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(socketPath, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await probe(moved)).state === 'live') {
      try {
        fs.linkSync(moved, socketPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  } finally {
    fs.rmSync(moved, { force: true });
  }
}
