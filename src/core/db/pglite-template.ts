import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A new embedded data directory starts as a copy of a pristine one (PostgreSQL's `initdb` output, shut
 * down cleanly), kept per PGlite version in the package's `node_modules/.cache/svc/`. Running `initdb`
 * in WebAssembly was most of a first start (a second PGlite instance, then its files copied in through
 * the emulated file system: seconds of CPU); copying the template's files is a fraction of a second.
 * The first start on a machine builds the template once. Copying a cleanly stopped data directory is
 * what PostgreSQL documents as a file-system-level backup, so the copy is a database like any other.
 */
const PGLITE_ENTRY = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
const PGLITE_PACKAGE = path.resolve(path.dirname(PGLITE_ENTRY), '..');
const CACHE_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../node_modules/.cache/svc',
);

function pgliteVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(PGLITE_PACKAGE, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : 'unknown';
}

/** Where the template for this PGlite version and `key` (what was done to it after initdb) lives. */
export function templateDir(key: string, cacheRoot: string = CACHE_ROOT): string {
  return path.join(cacheRoot, `pgdata-template-${pgliteVersion()}-${key}`);
}

export function isDataDir(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'PG_VERSION'));
}

/** Templates of other PGlite versions or migration sets are not used again: 40 MB each. */
function removeOtherTemplates(kept: string): void {
  const folder = path.dirname(kept);
  for (const name of fs.readdirSync(folder)) {
    const other = path.join(folder, name);
    const finished = name.startsWith('pgdata-template-') && !/\.(building|partial)-\d+$/.test(name);
    if (other !== kept && finished) fs.rmSync(other, { recursive: true, force: true });
  }
}

/** Copies a killed process left half done beside `pgdata` (the caller holds the data directory's lock). */
function removeStalePartials(pgdata: string): void {
  const folder = path.dirname(pgdata);
  const prefix = `${path.basename(pgdata)}.partial-`;
  for (const name of fs.readdirSync(folder)) {
    if (name.startsWith(prefix)) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}

/** `from` copied to `to` under a temporary name first, so `to` is either absent or complete. */
function copyWhole(from: string, to: string): void {
  const partial = `${to}.partial-${process.pid}`;
  fs.cpSync(from, partial, { recursive: true });
  fs.renameSync(partial, to);
}

/**
 * Fills the empty `pgdata` from the template, building the template first when there is none
 * (`initdb(dir)` must create a data directory in `dir` and shut it down cleanly). Answers false when no
 * template could be made or copied (a read-only cache folder): the caller then runs `initdb` in place.
 */
export async function seedFromTemplate(
  pgdata: string,
  template: string,
  initdb: (dir: string) => Promise<void>,
): Promise<boolean> {
  try {
    if (!isDataDir(template)) {
      const building = `${template}.building-${process.pid}`;
      fs.rmSync(building, { recursive: true, force: true });
      fs.mkdirSync(building, { recursive: true });
      try {
        await initdb(building);
        fs.renameSync(building, template);
        removeOtherTemplates(template);
      } catch (error) {
        fs.rmSync(building, { recursive: true, force: true });
        // Another process finished the same template first: use it.
        if (!isDataDir(template)) throw error;
      }
    }
    removeStalePartials(pgdata);
    if (fs.existsSync(pgdata)) fs.rmdirSync(pgdata); // only an empty folder gets here
    copyWhole(template, pgdata);
    return true;
  } catch {
    return false;
  }
}

/**
 * An in-memory database has no data directory to copy: it starts from the template's image instead, a
 * tarball of a prepared database (PGlite's `dumpDataDir`, taken right after a checkpoint) that PGlite
 * unpacks in place of running `initdb`. Tests open hundreds of in-memory databases a run, and `initdb`
 * plus the migrations were most of each one's start (seconds of WebAssembly CPU; unpacking is well
 * under one). Kept beside the data-directory templates, per PGlite version and template key.
 */
export function templateImage(key: string, cacheRoot: string = CACHE_ROOT): string {
  return path.join(cacheRoot, `pgdata-image-${pgliteVersion()}-${key}.tar`);
}

/** The image's bytes, or undefined when there is none yet (or it cannot be read). */
export function readTemplateImage(file: string): Uint8Array | undefined {
  try {
    const bytes = fs.readFileSync(file);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    return undefined;
  }
}

/** Images of other migration sets (made before a migration changed) are removed a day after they were made. */
const STALE_IMAGE_MS = 24 * 60 * 60 * 1000;

/**
 * Writes the image whole or not at all (another process may be writing the same one: the last rename
 * wins, and both are the same database). Best effort: a read-only cache folder means no image, and
 * in-memory databases then run `initdb` and `prepare` each time, as they did before images.
 */
export function writeTemplateImage(file: string, image: Uint8Array): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.partial-${process.pid}`;
    fs.writeFileSync(partial, image);
    fs.renameSync(partial, file);
    // Measured against the new image's own time: no wall-clock read here (seams.test.ts).
    const madeAt = fs.statSync(file).mtimeMs;
    const folder = path.dirname(file);
    for (const name of fs.readdirSync(folder)) {
      const other = path.join(folder, name);
      if (other === file || !name.startsWith('pgdata-image-')) continue;
      if (madeAt - fs.statSync(other).mtimeMs > STALE_IMAGE_MS) fs.rmSync(other, { force: true });
    }
  } catch {
    // no image this time
  }
}
