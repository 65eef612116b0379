import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

/**
 * docs/contributing.md walks through the polls module, which lives in test/fixtures/polls-module/ (where
 * test/platform/fixture-module.test.ts runs it in the service, and tsc checks it). Each code block of the
 * guide says, on the line before it, which file it is (`<!-- file: src/modules/polls/ids.ts -->`); here
 * every such block must be that fixture file, as it reads in src/modules/polls/ (its relative imports
 * pointed from there), so the guide cannot drift from code that compiles and passes its tests.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const GUIDE = 'docs/contributing.md';
const FIXTURE = path.join(ROOT, 'test/fixtures/polls-module');
const MODULE = path.join(ROOT, 'src/modules/polls');
const MODULE_PATH = 'src/modules/polls/';
/** The one file a guide block may show beside the module's folder, and the test runner every module has. */
const APP = 'src/app.ts';
const SECURITY_TEST = '__tests__/security.test.ts';

interface GuideBlock {
  /** What the `<!-- file: … -->` line names, if any. */
  file: string | undefined;
  lang: string;
  line: number;
  code: string;
}

function guideBlocks(): GuideBlock[] {
  const lines = fs.readFileSync(path.join(ROOT, GUIDE), 'utf8').split('\n');
  const blocks: GuideBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (fence === null) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    const named = /^<!-- file: (\S+) -->$/.exec(lines[i - 1] ?? '');
    blocks.push({
      file: named?.[1],
      lang: fence[1] ?? '',
      line: i + 1,
      code: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return blocks;
}

/** The fixture's files, relative to its folder. */
function fixtureFiles(dir = FIXTURE): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? fixtureFiles(path.join(dir, entry.name))
        : [path.relative(FIXTURE, path.join(dir, entry.name))],
    )
    .sort();
}

/** A fixture file as it reads at src/modules/polls/<file>: its relative imports pointed from there. */
function asModuleFile(file: string): string {
  const from = path.join(FIXTURE, file);
  const at = path.dirname(path.join(MODULE, file));
  const text = fs.readFileSync(from, 'utf8');
  return text.replace(/(from |import\()'(\.\.?\/[^']+)'/g, (_whole, lead: string, specifier: string) => {
    const target = path.resolve(path.dirname(from), specifier);
    const moved = target.startsWith(`${FIXTURE}${path.sep}`)
      ? path.join(MODULE, path.relative(FIXTURE, target))
      : target;
    const relative = path.relative(at, moved);
    return `${lead}'${relative.startsWith('.') ? relative : `./${relative}`}'`;
  });
}

/** `src/app.ts`'s module list with the polls module added, and its import. */
function appWithPolls(): string {
  const app = fs.readFileSync(path.join(ROOT, APP), 'utf8');
  const list = /\/\*\*[^\n]*\*\/\nexport const MODULES: [^\n]*\n(?: {2}\w+,\n)+\];/.exec(app)?.[0];
  assert.ok(list !== undefined, `${APP} declares MODULES one module a line`);
  return [
    "import { pollsModule } from './modules/polls/manifest.ts';",
    '',
    // (After someone followed the guide, app.ts lists polls already: the guide shows the list all the same.)
    list.replace('  pollsModule,\n', '').replace(/\];$/, '  pollsModule,\n];'),
  ].join('\n');
}

describe('docs/contributing.md shows the polls fixture as it is', () => {
  const blocks = guideBlocks();
  const shown = new Map(blocks.flatMap((b) => (b.file === undefined ? [] : [[b.file, b] as const])));

  test('every code block names the file it is', () => {
    const unnamed = blocks
      .filter((b) => b.file === undefined && b.lang !== 'text')
      .map((b) => `line ${b.line}`);
    assert.deepEqual(unnamed, [], 'code blocks without <!-- file: … -->');
  });

  test("each of the module's files is the fixture's file", () => {
    for (const block of blocks) {
      if (block.file === undefined || !block.file.startsWith(MODULE_PATH)) continue;
      const file = block.file.slice(MODULE_PATH.length);
      if (block.file.endsWith('/') || file === SECURITY_TEST) continue;
      assert.ok(fixtureFiles().includes(file), `${GUIDE}:${block.line}: the fixture has no ${file}`);
      assert.equal(`${block.code}\n`, asModuleFile(file), `${GUIDE}:${block.line}: ${block.file}`);
    }
  });

  test('every file of the fixture is shown', () => {
    const missing = fixtureFiles().filter((file) => !shown.has(`${MODULE_PATH}${file}`));
    assert.deepEqual(missing, []);
  });

  test('the folder it lists is the fixture, plus the security suite runner', () => {
    const listing = shown.get(MODULE_PATH);
    assert.ok(listing !== undefined, `a text block names ${MODULE_PATH}`);
    const listed = listing.code
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[0] ?? '');
    assert.deepEqual(listed.sort(), [...fixtureFiles(), SECURITY_TEST].sort());
  });

  test('the security suite runner is the one every module has', () => {
    const runner = fs.readFileSync(path.join(ROOT, 'src/modules/rooms', SECURITY_TEST), 'utf8');
    assert.equal(`${shown.get(`${MODULE_PATH}${SECURITY_TEST}`)?.code}\n`, runner);
  });

  test('outside its folder, a module touches src/app.ts alone: its module list, as it is today', () => {
    const outside = [...shown.keys()].filter((file) => !file.startsWith(MODULE_PATH));
    assert.deepEqual(outside, [APP]);
    assert.equal(shown.get(APP)?.code, appWithPolls());
  });
});
