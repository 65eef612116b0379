import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const specifier = match[1] ?? match[2];
    if (specifier !== undefined) found.push(specifier);
  }
  return found;
}

const relative = (file: string) => path.relative(SRC, file);

/**
 * The module platform's seams, checked on the source: core and the surfaces know modules only through
 * their manifests (handed in by app.ts), and validated input is typed, never cast.
 */
describe('module seams', () => {
  test('no file under src/core or src/surfaces imports from src/modules', () => {
    const modules = path.join(SRC, 'modules');
    const leaks = new Set<string>();
    for (const area of ['core', 'surfaces']) {
      for (const file of sourceFiles(path.join(SRC, area))) {
        for (const specifier of importsOf(file)) {
          if (!specifier.startsWith('.')) continue;
          const target = path.resolve(path.dirname(file), specifier);
          if (target === modules || target.startsWith(`${modules}${path.sep}`)) {
            leaks.add(relative(file));
          }
        }
      }
    }
    assert.deepEqual([...leaks].sort(), []);
  });

  test('a module imports no other module, except another module’s port file', () => {
    const modules = path.join(SRC, 'modules');
    const reaches: string[] = [];
    for (const name of fs.readdirSync(modules)) {
      const own = path.join(modules, name);
      for (const file of sourceFiles(own)) {
        for (const specifier of importsOf(file)) {
          if (!specifier.startsWith('.')) continue;
          const target = path.resolve(path.dirname(file), specifier);
          if (!target.startsWith(`${modules}${path.sep}`) || target.startsWith(`${own}${path.sep}`)) continue;
          if (path.basename(target) === 'port.ts') continue;
          reaches.push(`${relative(file)} imports ${specifier}`);
        }
      }
    }
    assert.deepEqual(reaches, []);
  });

  test('no casts of request input or of Principal remain in src', () => {
    const casts: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      for (const [i, line] of lines.entries()) {
        if (/request\.(body|params|query) as |as Principal\b|tenantId as string/.test(line)) {
          casts.push(`${relative(file)}:${i + 1}: ${line.trim()}`);
        }
      }
    }
    assert.deepEqual(casts, []);
  });

  test('time comes from the injectable clock: no wall-clock reads in src outside core/clock.ts', () => {
    const reads: string[] = [];
    for (const file of sourceFiles(SRC)) {
      if (
        relative(file) === path.join('core', 'clock.ts') ||
        file.includes(`${path.sep}__tests__${path.sep}`)
      )
        continue;
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      for (const [i, line] of lines.entries()) {
        if (/\bDate\.now\(|new Date\(\)|performance\.timeOrigin/.test(line)) {
          reads.push(`${relative(file)}:${i + 1}: ${line.trim()}`);
        }
      }
    }
    assert.deepEqual(reads, []);
  });
});
