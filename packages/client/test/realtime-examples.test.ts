import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../../../test/support/eventually.ts';
import { postMessage, type RealtimeService, startService } from './support/realtime-service.ts';

/**
 * docs/client.md's realtime examples, taken from the page as a reader copies them: they compile (the
 * browser one with the DOM's types and none of Node's) and the Node one runs against the service.
 */

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const SRC = path.join(ROOT, 'packages/client/src');
// Under the repository's node_modules (out of the linter's and the type check's way), so the examples
// resolve `ws` and the types as an app's files would.
const cache = path.join(ROOT, 'node_modules/.cache');
fs.mkdirSync(cache, { recursive: true });
const dir = fs.mkdtempSync(path.join(cache, 'svc-client-realtime-examples-'));
// An app's scripts are ES modules (top-level await).
fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');

/** The ```ts block of a page that starts with `firstLine`, written to `dir/name`. */
function example(name: string, firstLine: string, page = 'docs/client.md'): string {
  const doc = fs.readFileSync(path.join(ROOT, page), 'utf8');
  const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
  const found = blocks.filter((code) => code.startsWith(firstLine));
  assert.equal(found.length, 1, `${page} has one ts block starting with ${firstLine}`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, found[0] ?? '');
  return file;
}

const NODE_EXAMPLE = example('bot.ts', '// A bot in a room, in Node');
const BROWSER_EXAMPLE = example('page.ts', '// In a page: a room');
const QUICKSTART = example('chat.ts', '// chat.ts: a room', 'docs/quickstart.md');

/** A tsconfig for one example, `@svc/client*` mapped to the sources (not a build that may be older). */
function tsconfig(name: string, file: string, types: string[]): string {
  const config = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        noEmit: true,
        types,
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
        paths: {
          '@svc/client': [path.join(SRC, 'index.ts')],
          '@svc/client/realtime': [path.join(SRC, 'realtime.ts')],
        },
      },
      files: [file],
    }),
  );
  return config;
}

async function typecheck(config: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      config,
    ]);
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? 1, output: failed.stdout ?? String(error) };
  }
}

let svc: RealtimeService;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs an example with tsx, `@svc/client*` from the sources; `stop` sends SIGINT and resolves with its exit code. */
function start(file: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: {
      ...process.env,
      SVC_URL: svc.baseUrl,
      TSX_TSCONFIG_PATH: tsconfig(`run-${path.basename(file)}`, file, ['node']),
      ...env,
    },
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => text,
    async stop(): Promise<number | null> {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

describe("docs/client.md's realtime examples", () => {
  test('compile: the Node one with Node types, the browser one with the DOM only', async () => {
    const [node, browser, quickstart] = await Promise.all([
      typecheck(tsconfig('node', NODE_EXAMPLE, ['node'])),
      typecheck(tsconfig('browser', BROWSER_EXAMPLE, [])),
      typecheck(tsconfig('quickstart', QUICKSTART, ['node'])),
    ]);
    assert.equal(node.code, 0, node.output);
    assert.equal(browser.code, 0, browser.output);
    assert.equal(quickstart.code, 0, quickstart.output);
  });

  test("the quickstart's script makes its room, posts and prints the room's messages", async () => {
    const { output, stop } = start(QUICKSTART, { API_KEY: svc.tenant.apiKey });
    try {
      await eventually(
        () => `the script's message:\n${output()}`,
        () => /^stored as #1$/m.test(output()) || undefined,
        {
          timeoutMs: 60_000,
        },
      );
      await eventually(
        () => `the message printed:\n${output()}`,
        () => /^#1 acme-oidc:user_42: hello from the SDK$/m.test(output()) || undefined,
      );
      assert.match(output(), /^here: acme-oidc:user_42$/m);
    } finally {
      await stop();
    }
  });

  test('the Node bot joins, says hello, answers !time, and leaves on SIGINT', async () => {
    const roomId = await svc.createRoom();
    const { output, stop } = start(NODE_EXAMPLE, { SVC_API_KEY: svc.tenant.apiKey, ROOM: roomId });
    let exit: number | null | undefined;
    try {
      await eventually(
        () => `the bot's hello:\n${output()}`,
        () => /^sent #1$/m.test(output()) || undefined,
        {
          timeoutMs: 60_000,
        },
      );
      await postMessage(svc, roomId, '!time');
      await eventually(
        () => `the bot's answer:\n${output()}`,
        () => /^#3 demo:clock-bot: \d{4}-\d\d-\d\dT/m.test(output()) || undefined,
      );
      assert.match(output(), /^status connected$/m);
      assert.match(output(), /^#2 test:rest: !time$/m);
      const texts = (await svc.allMessages(roomId)).map((m) => m.text);
      assert.equal(texts.length, 3);
      assert.deepEqual(texts.slice(0, 2), ['clock-bot is here: say !time', '!time']);
    } finally {
      exit = await stop();
    }
    assert.equal(exit, 0, `the bot leaves and exits on SIGINT:\n${output()}`);
  });
});
