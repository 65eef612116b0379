import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHECKER = path.join(ROOT, 'scripts/import-cycles.mjs');

function runChecker(...args: string[]) {
  const run = spawnSync(process.execPath, [CHECKER, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A throwaway source tree: `files` maps a relative path to its text. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cycles-'));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe('import circles', () => {
  test('no two files of src/ depend on each other, counting type-only imports and lazy loads', () => {
    const run = runChecker('--dynamic');
    assert.equal(run.status, 0, run.output);
  });

  test('the checker finds a circle closed by a type-only import, and names its files', () => {
    const dir = tree({
      'core/context.ts':
        "import type { Registry } from './registry.ts';\nexport interface Ctx { r: Registry }\n",
      'core/registry.ts': "import { helper } from './helper.ts';\nexport class Registry { h = helper }\n",
      'core/helper.ts': "import type { Ctx } from './context.ts';\nexport const helper = (c: Ctx) => c;\n",
      'core/leaf.ts': "import { helper } from './helper.ts';\nexport const x = helper;\n",
    });
    try {
      const run = runChecker(dir);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /circle 1: 3 files/);
      for (const file of ['core/context.ts', 'core/registry.ts', 'core/helper.ts'])
        assert.ok(run.output.includes(file), run.output);
      assert.ok(!run.output.includes('core/leaf.ts'), run.output);
      // Without the type-only imports there is none.
      assert.equal(runChecker('--runtime-only', dir).status, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('module augmentation and re-exports count as dependencies', () => {
    const dir = tree({
      'a.ts': "export { b } from './b.ts';\nexport interface A { n: number }\n",
      'b.ts': "declare module './a.ts' { interface A { b: string } }\nexport const b = 1;\n",
    });
    try {
      const run = runChecker(dir);
      assert.equal(run.status, 1, run.output);
      assert.match(run.output, /circle 1: 2 files/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
