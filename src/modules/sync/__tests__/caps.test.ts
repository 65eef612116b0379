import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { WebSocket } from 'ws';
import { eventually } from '../../../../test/support/eventually.ts';
import { ConfigError, loadConfig } from '../../../config.ts';
import { syncSuite } from './suites.ts';
import { socketUrl, syncToken, tryUpgrade } from './support.ts';

/**
 * Issue 28 item 8: one actor, and one tenant, hold only their share of an instance's sync capacity; past it
 * an upgrade is refused with 429 (Retry-After) while other tenants still connect. Small caps stand for the
 * defaults (SVC_SYNC_*: 100 connections per actor, a fifth of the instance per tenant).
 */

// Registered before the suite: the sockets close before the instance does.
const sockets: WebSocket[] = [];
after(() => {
  for (const socket of sockets) socket.close();
});
const s = syncSuite({
  tenants: 2,
  limits: {
    maxConnectionsPerActor: 2,
    maxDocumentsPerTenant: 3,
    maxConnectionsPerTenant: 4,
    maxOpenDocuments: 5,
    maxConnections: 100,
  },
});

/** Opens `/v1/sync/<room>/<doc>` with the token: the socket, or the HTTP refusal. */
async function connect(room: string, doc: string, token: string) {
  const result = await tryUpgrade(socketUrl(s.t, `${room}/${doc}`, token));
  if ('socket' in result) sockets.push(result.socket);
  return result;
}

function refusal(result: Awaited<ReturnType<typeof connect>>): { status: number; body: string } {
  assert.ok('status' in result, 'the upgrade was expected to be refused');
  return result;
}

describe('sync caps per actor and per tenant', () => {
  test('an actor past its connections, a tenant past its documents and connections: 429; another tenant connects', async () => {
    const [tenant, other] = s.tenants;
    assert.ok(tenant !== undefined && other !== undefined);
    const first = await syncToken(s.t, tenant.apiKey);
    assert.ok('socket' in (await connect(tenant.roomId, 'd1', first)));
    const held = await connect(tenant.roomId, 'd2', first);
    assert.ok('socket' in held);
    const actorFull = refusal(await connect(tenant.roomId, 'd3', first));
    assert.equal(actorFull.status, 429);
    assert.match(actorFull.body, /actor already has 2 sync connections/);

    const second = await syncToken(s.t, tenant.apiKey);
    assert.ok('socket' in (await connect(tenant.roomId, 'd3', second)));
    const documentsFull = refusal(await connect(tenant.roomId, 'd4', second));
    assert.equal(documentsFull.status, 429);
    assert.match(documentsFull.body, /tenant already has 3 documents open/);

    // A document the tenant holds already takes one more connection, up to the tenant's connections.
    const third = await syncToken(s.t, tenant.apiKey);
    assert.ok('socket' in (await connect(tenant.roomId, 'd1', third)));
    const connectionsFull = refusal(await connect(tenant.roomId, 'd2', third));
    assert.equal(connectionsFull.status, 429);
    assert.match(connectionsFull.body, /tenant already has 4 sync connections/);

    // Another tenant is not touched by the first one's use.
    const outsider = await syncToken(s.t, other.apiKey);
    assert.ok('socket' in (await connect(other.roomId, 'd1', outsider)));

    // A slot comes back when its socket closes.
    if ('socket' in held) held.socket.close();
    await eventually('the actor to connect again', async () => {
      const again = await connect(tenant.roomId, 'd2', first);
      return 'socket' in again;
    });
    const hub = s.t.hub;
    assert.equal(hub.caps.documentsOf(tenant.tenantId), 3);
  });

  test('config: a tenant’s share must stay below the instance (SVC_SYNC_MAX_DOCUMENTS_PER_TENANT)', () => {
    assert.throws(
      () => loadConfig({ SVC_SYNC_MAX_OPEN_DOCUMENTS: '100', SVC_SYNC_MAX_DOCUMENTS_PER_TENANT: '100' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /SVC_SYNC_MAX_DOCUMENTS_PER_TENANT: expected a whole number from 1 to 99/.test(error.message),
    );
    const defaults = loadConfig({}).sync;
    assert.ok(defaults.maxDocumentsPerTenant < defaults.maxOpenDocuments);
    assert.ok(defaults.maxConnectionsPerTenant < defaults.maxConnections);
  });
});
