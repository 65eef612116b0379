#!/usr/bin/env node
// Import circles between the files of src/: Tarjan's strongly connected components over every relative
// `import ... from`, `export ... from`, side-effect `import '...'` and `declare module '...'` augmentation,
// type-only ones included (a type-only
// circle still means two files can only be understood together). Prints each circle and exits 1 when
// there is one.
//
//   node scripts/import-cycles.mjs [--runtime-only] [--dynamic] [--json] [dir]
//
// --runtime-only leaves out `import type` / `export type` and imports whose every name is `type`;
// --dynamic also follows `import('./x.ts')` calls (lazy loads, left out by default).
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(import.meta.dirname, '../src'));

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The text without comments, string contents kept (specifiers live in strings). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/.*$/gm, (_match, before = '') => before);
}

/** Whether an import or export clause names only types. */
function typeOnly(clause) {
  const trimmed = clause.trim();
  if (/^type\s/.test(trimmed)) return true;
  const braces = trimmed.match(/^\{([\s\S]*)\}$/);
  if (braces === null) return false;
  const names = braces[1]
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length > 0 && names.every((name) => /^type\s/.test(name));
}

/** Each relative specifier a file names, with whether the reference is type-only. */
function importsOf(file) {
  const text = withoutComments(fs.readFileSync(file, 'utf8'));
  const found = [];
  const statements = /\b(import|export)\s+([^;'"]*?)\s*from\s*['"]([^'"]+)['"]|\bimport\s+['"]([^'"]+)['"]/g;
  for (const match of text.matchAll(statements)) {
    if (match[4] !== undefined) found.push({ specifier: match[4], typeOnly: false, dynamic: false });
    else found.push({ specifier: match[3], typeOnly: typeOnly(match[2]), dynamic: false });
  }
  // `declare module './x.ts' { ... }` adds to another file's types: a type-only dependency on it.
  for (const match of text.matchAll(/\bdeclare\s+module\s+['"]([^'"]+)['"]/g)) {
    found.push({ specifier: match[1], typeOnly: true, dynamic: false });
  }
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    // `import('./x.ts').Name` in a type position is a type reference, not a load.
    const after = text.slice((match.index ?? 0) + match[0].length);
    const inType =
      /^\s*\./.test(after) && /(:|type\s+\w+\s*=|<)\s*$/.test(text.slice(0, match.index).slice(-40));
    found.push({ specifier: match[1], typeOnly: inType, dynamic: !inType });
  }
  return found.filter((entry) => entry.specifier.startsWith('.'));
}

function resolveSpecifier(from, specifier) {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, path.join(target, 'index.ts')];
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
}

export function importGraph(dir, { runtimeOnly = false, dynamic = false } = {}) {
  const files = sourceFiles(dir);
  const graph = new Map();
  for (const file of files) {
    const edges = new Set();
    for (const entry of importsOf(file)) {
      if (runtimeOnly && entry.typeOnly) continue;
      if (entry.dynamic && !dynamic) continue;
      const target = resolveSpecifier(file, entry.specifier);
      if (target !== undefined && target !== file) edges.add(target);
    }
    graph.set(file, [...edges]);
  }
  return graph;
}

/** Tarjan's algorithm, iterative (deep import chains must not overflow the stack). */
export function stronglyConnected(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let counter = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter);
    counter += 1;
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next];
        frame.next += 1;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter);
          counter += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(target)));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  return components;
}

/** One shortest closed path through a component, to show how the circle runs. */
function exampleLoop(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const loop = [node];
        for (let step = previous.get(node); step !== undefined; step = previous.get(step)) loop.unshift(step);
        return [...loop, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [];
}

export function importCycles(dir, options) {
  const graph = importGraph(dir, options);
  return stronglyConnected(graph).map((component) => ({
    files: component.map((file) => path.relative(dir, file)),
    loop: exampleLoop(graph, component).map((file) => path.relative(dir, file)),
  }));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === import.meta.filename) {
  const cycles = importCycles(root, {
    runtimeOnly: flags.has('--runtime-only'),
    dynamic: flags.has('--dynamic'),
  });
  if (flags.has('--json')) console.log(JSON.stringify(cycles, null, 2));
  else if (cycles.length === 0)
    console.log(`no import circles among the files of ${path.relative(process.cwd(), root) || '.'}`);
  else {
    for (const [n, cycle] of cycles.entries()) {
      console.log(`circle ${n + 1}: ${cycle.files.length} files`);
      for (const file of cycle.files) console.log(`  ${file}`);
      console.log(`  e.g. ${cycle.loop.join(' -> ')}`);
    }
  }
  process.exit(cycles.length === 0 ? 0 : 1);
}
