import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type DocBlock, docPages, readBlocks } from './doc-blocks.ts';

/**
 * Every shell example of docs/, run as a new user runs them: `npm start` on an empty data folder (the
 * quickstart's embedded service), then each ```sh / ```bash block in the README's order, in one terminal
 * whose variables carry from block to block, from the user's project folder. The only change made to a
 * block is the port: the service listens on a free one, not 8080. A block passes when it exits 0 and each
 * of its requests answers what its text shows: the status in the comment under it, else a 2xx or 3xx.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/svc.mjs');
const START_LIMIT_MS = 120_000;
const BLOCK_LIMIT_MS = 60_000;

let project: string;
let service: ChildProcess | undefined;
let baseUrl = '';
let output = '';

before(async () => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-user-'));
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"docs-user","private":true}\n');
  fs.mkdirSync(path.join(project, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(BIN, path.join(project, 'node_modules/.bin/svc'));
  service = spawn(process.execPath, [BIN, 'start'], {
    cwd: project,
    env: { ...userEnv(), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' },
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  service.stdout?.on('data', collect);
  service.stderr?.on('data', collect);
  const deadline = Date.now() + START_LIMIT_MS;
  while (true) {
    const listening = /svc listening on (http:\/\/\S+)/.exec(output);
    if (listening?.[1] !== undefined && output.includes('dev-credentials.json')) {
      baseUrl = listening[1];
      break;
    }
    if (service.exitCode !== null) throw new Error(`svc start exited:\n${output}`);
    if (Date.now() > deadline) throw new Error(`svc start did not listen:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

after(async () => {
  if (service !== undefined && service.exitCode === null) {
    const exited = new Promise((resolve) => service?.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(project, { recursive: true, force: true });
});

/** What a new terminal has: no DATABASE_URL, no REDIS_URL, no test settings. */
function userEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, SVC_ENV: 'development', LANG: 'C.UTF-8' };
}

interface BlockRun {
  status: number | null;
  stdout: string;
  stderr: string;
  statuses: number[];
}

function runBlock(block: DocBlock, stateFile: string): BlockRun {
  const headersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-docs-headers-'));
  const code = block.code
    .replaceAll('http://127.0.0.1:8080', baseUrl)
    .replaceAll('localhost:8080', new URL(baseUrl).host);
  const script = [
    `[ -f ${quote(stateFile)} ] && source ${quote(stateFile)}`,
    // Whatever the block leaves set is what the next block starts with, as in one terminal.
    `trap 'declare -p $(compgen -v | grep -E "^[A-Z][A-Z0-9_]*$" | grep -vxE "${SHELL_OWN}") > ${quote(stateFile)} 2>/dev/null' EXIT`,
    // Each request's response headers go to a file of its own, named by when it started: the statuses in
    // order. A command that dumps the headers itself gets its status written there instead.
    `curl() {
      local file="${headersDir}/$(date +%s%N)"
      for arg in "$@"; do case "$arg" in -D|--dump-header)
        command curl -sS -w '%{stderr}HTTP/1.1 %{http_code}\\n' "$@" 2>>"$file"; return;; esac; done
      command curl -sS -D "$file" "$@"
    }`,
    'set -eo pipefail',
    code,
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], {
    cwd: project,
    env: userEnv(),
    encoding: 'utf8',
    timeout: BLOCK_LIMIT_MS,
  });
  const statuses = fs
    .readdirSync(headersDir)
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
    .map((name) => lastStatus(fs.readFileSync(path.join(headersDir, name), 'latin1')));
  fs.rmSync(headersDir, { recursive: true, force: true });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, statuses };
}

/** The status of the last response in a header dump (a redirect followed dumps one block per response); 0 = none. */
function lastStatus(headers: string): number {
  const lines = [...headers.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
  return Number(lines.at(-1)?.[1] ?? 0);
}

/** Variables bash sets itself, never carried between blocks. */
const SHELL_OWN = [
  'BASH.*',
  'HOME',
  'HOSTNAME',
  'HOSTTYPE',
  'IFS',
  'LANG',
  'MACHTYPE',
  'OLDPWD',
  'OPTERR',
  'OPTIND',
  'OSTYPE',
  'PATH',
  'PIPESTATUS',
  'PPID',
  'PS4',
  'PWD',
  'SHELL',
  'SHELLOPTS',
  'SHLVL',
  'UID',
  'EUID',
  'GROUPS',
  'COLUMNS',
  'LINES',
  'RANDOM',
  'SECONDS',
  'LINENO',
  'EPOCH.*',
  'SRANDOM',
  'TERM',
].join('|');

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** What is wrong with a block's run, in words; empty when it did what its text shows. */
function problems(block: DocBlock, run: BlockRun): string[] {
  const found: string[] = [];
  if (run.status !== 0) found.push(`exited ${run.status ?? 'on a signal (time limit?)'}`);
  if (run.statuses.length !== block.curls.length) {
    found.push(`made ${run.statuses.length} requests; its text shows ${block.curls.length} curl commands`);
  }
  run.statuses.forEach((status, i) => {
    const site = block.curls[i];
    if (site === undefined) return;
    const where = `${block.file}:${site.line}`;
    if (site.expected !== undefined && status !== site.expected) {
      found.push(`${where}: answered ${status}, the example shows ${site.expected}`);
    } else if (site.expected === undefined && (status < 200 || status >= 400)) {
      found.push(`${where}: answered ${status}, and the example shows no status (so a 2xx is meant)`);
    }
  });
  return found;
}

test('every shell example in docs/ runs as printed against a fresh service', () => {
  const stateFile = path.join(project, '.docs-shell-state');
  const failures: string[] = [];
  let ran = 0;
  const skipped: string[] = [];
  for (const page of docPages(ROOT)) {
    for (const block of readBlocks(ROOT, page)) {
      if (block.skip !== undefined) {
        skipped.push(`${block.file}:${block.line} (${block.skip})`);
        continue;
      }
      ran++;
      const run = runBlock(block, stateFile);
      const found = problems(block, run);
      if (found.length > 0) {
        failures.push(
          [
            `${block.file}:${block.line}: ${found.join('; ')}`,
            indent(block.code),
            `  stdout: ${tail(run.stdout)}`,
            `  stderr: ${tail(run.stderr)}`,
          ].join('\n'),
        );
      }
    }
  }
  console.log(
    `docs: ran ${ran} shell blocks, ${failures.length} failed; skipped ${skipped.length}: ${skipped.join(', ')}`,
  );
  assert.ok(ran > 40, `only ${ran} shell blocks found in docs/`);
  assert.deepEqual(failures, [], `\n${failures.join('\n\n')}\nservice output:\n${tail(output)}`);
});

function indent(code: string): string {
  return code
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 1500 ? `…${trimmed.slice(-1500)}` : trimmed;
}
