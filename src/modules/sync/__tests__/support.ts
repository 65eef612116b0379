import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { call, type TestApp, testConfig } from '../../../../test/helper.ts';
import { type Deployment, deployment } from '../../../../test/realtime-gateway/support.ts';
import { eventually } from '../../../../test/support/eventually.ts';
import { appMigrations, buildApp, MODULES } from '../../../app.ts';
import type { Config } from '../../../config.ts';
import { type Clock, systemClock } from '../../../core/clock.ts';
import type { Database } from '../../../core/db/database.ts';
import { migrate } from '../../../core/db/migrations.ts';
import type { RealtimeBackplane } from '../../../core/realtime/index.ts';
import { openDatabase } from '../../../runtime.ts';
import type { SyncHub } from '../hub.ts';
import type { SyncLimits } from '../limits.ts';
import { syncModuleWith } from '../manifest.ts';

/** One app instance listening on a loopback port, with the sync module's limits as given. */
export interface SyncInstance extends TestApp {
  backplane: RealtimeBackplane;
  /** `ws://127.0.0.1:<port>/v1/sync`: the provider's server URL. */
  syncUrl: string;
  baseUrl: string;
  /** The app's sync hub (its counters and documents). */
  hub: SyncHub;
}

export interface SyncInstanceOptions {
  db?: Database;
  deployment?: Deployment;
  limits?: Partial<SyncLimits>;
  config?: Partial<Config>;
  /** The app's clock (default the system's): a ManualClock moves token expiry and the access checks. */
  clock?: Clock;
}

export async function startSyncInstance(options: SyncInstanceOptions = {}): Promise<SyncInstance> {
  const config = testConfig(options.config);
  const db = options.db ?? (await openDatabase(config, { inMemory: true }));
  const own = options.deployment === undefined ? deployment() : undefined;
  const backplane = await (options.deployment ?? own)?.backplane();
  if (backplane === undefined) throw new Error('no backplane');
  let hub: SyncHub | undefined;
  const observe = (built: SyncHub) => {
    hub = built;
  };
  const modules = MODULES.map((m) => (m.name === 'sync' ? syncModuleWith(options.limits, observe) : m));
  await migrate(db, appMigrations(modules));
  const app = await buildApp({
    config,
    db,
    clock: options.clock ?? systemClock,
    workers: false,
    modules,
    realtime: { backplane },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  if (hub === undefined) throw new Error('the sync module built no hub');
  return {
    app,
    hub,
    db,
    config,
    backplane,
    baseUrl: `http://127.0.0.1:${port}`,
    syncUrl: `ws://127.0.0.1:${port}/v1/sync`,
    async close() {
      await app.close();
      await own?.cleanup();
      if (options.db === undefined) await db.close();
    },
  };
}

export interface SyncTenant extends TestTenant {
  roomId: string;
}

export async function tenantWithRoom(t: TestApp): Promise<SyncTenant> {
  const tenant = await createTestTenant(t);
  return { ...tenant, roomId: await createRoom(t, tenant.apiKey) };
}

export async function createRoom(t: TestApp, apiKey: string): Promise<string> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/rooms',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { id: `room-${randomUUID()}` },
  });
  if (res.statusCode !== 201) throw new Error(`room create failed: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}

export interface SessionOptions {
  modules?: string[];
  roomId?: string;
  scopes?: string[];
}

/** A session token through POST /v1/runtime/connect (`scopes` narrows it, e.g. read-only). */
export async function syncToken(t: TestApp, apiKey: string, options: SessionOptions = {}): Promise<string> {
  return (await syncSession(t, apiKey, options)).token;
}

/** A session through POST /v1/runtime/connect: its token and its id (to revoke it). */
export async function syncSession(
  t: TestApp,
  apiKey: string,
  options: SessionOptions = {},
): Promise<{ token: string; sessionId: string }> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/runtime/connect',
    headers: { 'x-api-key': apiKey },
    payload: {
      modules: options.modules ?? ['sync'],
      actor: { type: 'end_user', id: `test:${randomUUID()}`, identityProvider: 'test' },
      ...(options.roomId === undefined ? {} : { roomId: options.roomId }),
      ...(options.scopes === undefined ? {} : { scopes: options.scopes }),
    },
  });
  if (res.statusCode !== 201) throw new Error(`connect failed: ${res.statusCode} ${res.body}`);
  return res.json<{ token: string; sessionId: string }>();
}

/** The stock provider in Node: `ws` as its WebSocket, no BroadcastChannel between the test's own clients. */
export function provider(
  instance: Pick<SyncInstance, 'syncUrl'>,
  room: string,
  token: string,
  doc: Y.Doc = new Y.Doc(),
): WebsocketProvider {
  return new WebsocketProvider(instance.syncUrl, room, doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token },
    disableBc: true,
  });
}

export async function synced(p: WebsocketProvider): Promise<void> {
  await eventually('the provider to sync', () => p.synced);
}

/** What an upgrade attempt got: the HTTP refusal, or the socket once open. */
export function tryUpgrade(url: string): Promise<{ status: number; body: string } | { socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => resolve({ socket }));
    socket.on('error', (error) => {
      if (!String(error.message).includes('Unexpected server response')) reject(error);
    });
  });
}

/** `/v1/sync/<room>` of the instance, with the token as its query when there is one. */
export function socketUrl(instance: Pick<SyncInstance, 'syncUrl'>, room: string, token?: string): string {
  return `${instance.syncUrl}/${room}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
}

/** What an upgrade got, in a word: `opened` (closed again at once) or `<status> <error code>`. */
export async function upgradeOutcome(url: string): Promise<string> {
  const result = await tryUpgrade(url);
  if ('socket' in result) {
    result.socket.close();
    return 'opened';
  }
  return `${result.status} ${(JSON.parse(result.body) as { error: string }).error}`;
}

/** A raw client of a document, open once the server has sent its step 1 (it is attached then). */
export async function rawClient(
  url: string,
  options: { autoPong?: boolean } = {},
): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  const socket = new WebSocket(url, { autoPong: options.autoPong ?? true });
  socket.binaryType = 'nodebuffer';
  const closed = closeCode(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
  });
  return { socket, closed };
}

/** Resolves with the close code the server sent. */
export function closeCode(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => socket.once('close', (code) => resolve(code)));
}

/**
 * The code of the next close the provider sees from the server (its `connection-close` event; a close
 * the provider makes itself has no event and is not counted).
 */
export function providerClose(p: WebsocketProvider, timeoutMs = 20_000): Promise<number> {
  return new Promise((resolve, reject) => {
    // A guard, not a threshold: a close that never comes fails the test instead of hanging it.
    const timer = setTimeout(() => {
      p.off('connection-close', listener);
      reject(new Error(`the server did not close the provider's socket within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (event: { code: number } | null) => {
      if (event === null) return;
      clearTimeout(timer);
      p.off('connection-close', listener);
      resolve(event.code);
    };
    p.on('connection-close', listener);
  });
}

/** PUT /api/console/tenants/:tenantId/modules/sync as the tenant's owner: enablement and configuration. */
export async function configureSync(
  t: TestApp,
  tenant: TestTenant,
  body: { enabled: boolean; config?: Record<string, unknown> },
): Promise<void> {
  const res = await call(t.app, {
    method: 'PUT',
    url: `/api/console/tenants/${tenant.tenantId}/modules/sync`,
    headers: { authorization: `Bearer ${tenant.ownerToken}` },
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`module settings: ${res.statusCode} ${res.body}`);
}
