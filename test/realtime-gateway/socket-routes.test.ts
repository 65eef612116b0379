import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { AppError } from '../../src/core/http/errors.ts';
import { SocketCaps } from '../../src/surfaces/realtime/socket-caps.ts';

const MODULES = path.resolve(import.meta.dirname, '../../src/modules');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__tests__' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function refusal(take: () => unknown): { status: number; message: string } {
  try {
    take();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return { status: error.status, message: error.message };
  }
  assert.fail('the slot was expected to be refused');
}

/**
 * A module that speaks its own protocol over a WebSocket (sync) declares a raw socket route; the gateway
 * keeps its connections. The sync tests show each duty end to end with the stock provider (pings and the
 * dead-peer drop, expiry, revocation, the module switched off, caps, 1012 at shutdown); these check the
 * seams that keep it so.
 */
describe('raw socket routes', () => {
  test('no module pings sockets, hears revocations or re-checks its switch on its own', () => {
    const found: string[] = [];
    for (const file of sourceFiles(MODULES)) {
      const text = fs.readFileSync(file, 'utf8');
      for (const duty of ['.ping(', 'onSessionsRevoked', 'onApiKeyRevoked', 'enabledModules(', "on('pong'"]) {
        if (text.includes(duty)) found.push(`${path.relative(MODULES, file)}: ${duty}`);
      }
    }
    assert.deepEqual(found, []);
  });

  test('caps per instance, tenant and actor; a slot comes back once, whatever calls its release', () => {
    const caps = new SocketCaps(
      { maxConnections: 3, maxConnectionsPerTenant: 2, maxConnectionsPerActor: 1 },
      { label: 'echo', instanceFull: 503, variables: { tenant: 'SVC_ECHO_TENANT' } },
    );
    const first = caps.take('t1', 'actor:a');
    assert.match(refusal(() => caps.take('t1', 'actor:a')).message, /actor already has 1 echo connections/);
    caps.take('t1', 'actor:b');
    const tenantFull = refusal(() => caps.take('t1', 'actor:c'));
    assert.equal(tenantFull.status, 429);
    assert.match(
      tenantFull.message,
      /tenant already has 2 echo connections on this instance, its limit \(SVC_ECHO_TENANT\)/,
    );
    caps.take('t2', 'actor:d');
    const instanceFull = refusal(() => caps.take('t3', 'actor:e'));
    assert.equal(instanceFull.status, 503, 'this route sends a full instance elsewhere');
    first();
    first();
    assert.equal(caps.open, 2, 'released once');
    caps.take('t1', 'actor:a');
    const realtime = new SocketCaps(
      { maxConnections: 1, maxConnectionsPerActor: 1 },
      { label: 'realtime', instanceFull: 429 },
    );
    realtime.take('t1', 'actor:a');
    assert.equal(
      refusal(() => realtime.take('t2', 'actor:b')).status,
      429,
      'without a tenant cap, the instance',
    );
  });
});
