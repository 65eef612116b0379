import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { WebsocketProvider } from 'y-websocket';
import { eventually } from '../../../../test/support/eventually.ts';
import { provider, synced } from './support.ts';

/**
 * The real `svc` process (embedded database on disk) is SIGKILLed right after an edit was relayed to
 * another client; started again on the same data, it serves the edit. Relayed means stored: updates are
 * appended before they are relayed.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const children = new Set<ChildProcess>();
const providers: WebsocketProvider[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sync-crash-'));

after(() => {
  for (const p of providers) {
    p.destroy();
    p.doc.destroy();
  }
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      PORT: '0',
      SVC_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    },
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const baseUrl = await eventually(
    () => `svc to listen:\n${output}`,
    () =>
      child.exitCode !== null
        ? Promise.reject(new Error(output))
        : /svc listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1],
    { timeoutMs: 120_000, stepMs: 100 },
  );
  return { child, baseUrl };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

test('an edit relayed to another client survives SIGKILL of the instance', async () => {
  const first = await start();
  const { apiKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8')) as {
    apiKey: string;
  };
  const api = async (url: string, body: unknown) => {
    const res = await fetch(`${first.baseUrl}${url}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${url}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const roomId = String((await api('/v1/rooms', { id: 'crash-room' })).id);
  const token = String(
    (
      await api('/v1/runtime/connect', {
        modules: ['sync'],
        actor: { type: 'end_user', id: 'test:crash', identityProvider: 'test' },
      })
    ).token,
  );
  const syncUrl = `${first.baseUrl.replace(/^http/, 'ws')}/v1/sync`;
  const writer = provider({ syncUrl }, roomId, token);
  const watcher = provider({ syncUrl }, roomId, token);
  providers.push(writer, watcher);
  await Promise.all([synced(writer), synced(watcher)]);
  writer.doc.getText('t').insert(0, 'survives SIGKILL');
  await eventually(
    'the edit to be relayed',
    () => watcher.doc.getText('t').toString() === 'survives SIGKILL',
  );
  await kill(first.child);
  writer.destroy();
  watcher.destroy();

  const second = await start();
  const reader = provider({ syncUrl: `${second.baseUrl.replace(/^http/, 'ws')}/v1/sync` }, roomId, token);
  providers.push(reader);
  await synced(reader);
  await eventually(
    'the restarted service to serve the edit',
    () => reader.doc.getText('t').toString() === 'survives SIGKILL',
  );
  await kill(second.child);
});
