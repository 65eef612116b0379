#!/usr/bin/env node
// `npm test`: every *.test.ts under test/, src/ and packages/*/test/, through node's test runner with tsx's loader.
// With DATABASE_URL set, migrations are applied once first so test files never race on them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filter = process.argv.slice(2);

function collect(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : collect(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const packageTests = fs.existsSync(path.join(root, 'packages'))
  ? fs
      .readdirSync(path.join(root, 'packages'))
      .flatMap((name) => collect(path.join(root, 'packages', name, 'test')))
  : [];
let files = [...collect(path.join(root, 'test')), ...collect(path.join(root, 'src')), ...packageTests].sort();
// Multi-instance suites need the PostgreSQL server and Redis; `npm run test:multi` runs them (CI does).
if (filter.length > 0) files = files.filter((f) => filter.some((part) => f.includes(part)));
else files = files.filter((f) => !f.includes('multi-instance'));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

if (process.env.DATABASE_URL) {
  const migrated = spawnSync(process.execPath, [path.join(root, 'bin/svc.mjs'), 'migrate'], {
    stdio: 'inherit',
  });
  if (migrated.status !== 0) process.exit(migrated.status ?? 1);
}

const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? '2'}`,
    `--test-timeout=${process.env.TEST_FILE_TIMEOUT_MS ?? '600000'}`,
    '--test-reporter=spec',
    ...files.map((f) => path.relative(root, f)),
  ],
  {
    stdio: 'inherit',
    cwd: root,
    env: {
      ...process.env,
      SVC_ENV: process.env.SVC_ENV ?? 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    },
  },
);
process.exit(result.status ?? 1);
