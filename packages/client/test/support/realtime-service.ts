import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import WebSocket from 'ws';
import { connectSession, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { type BuildOptions, buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import type { ChatMessage } from '../../src/realtime/types.ts';
import { createRealtime, type Realtime, type RealtimeOptions } from '../../src/realtime.ts';
import { TcpProxy } from './realtime-proxy.ts';

/** The real service listening on a loopback port, a tenant and a room: what the SDK's tests talk to. */
export interface RealtimeService {
  t: TestApp;
  baseUrl: string;
  port: number;
  tenant: TestTenant;
  /** A new room of the tenant. */
  createRoom(): Promise<string>;
  /** A fresh session token through the real `POST /v1/runtime/connect`. */
  token(actorId: string, modules?: string[]): Promise<string>;
  /** Every message of a room through REST (`GET /v1/rooms/:roomId/messages`, all pages). */
  allMessages(roomId: string): Promise<ChatMessage[]>;
  close(): Promise<void>;
}

let rooms = 0;

export async function startService(options: BuildOptions = {}): Promise<RealtimeService> {
  const t = await buildTestApp(options);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const tenant = await createTestTenant(t);
  const headers = { authorization: `Bearer ${tenant.apiKey}` };
  return {
    t,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    tenant,
    async createRoom() {
      const id = `sdk-room-${++rooms}-${Date.now().toString(36)}`;
      const res = await call(t.app, { method: 'POST', url: '/v1/rooms', headers, payload: { id } });
      if (res.statusCode !== 201) throw new Error(`POST /v1/rooms: ${res.statusCode} ${res.body}`);
      return id;
    },
    async token(actorId, modules = ['rooms', 'presence', 'chat', 'auctions']) {
      return (await connectSession(t, tenant.apiKey, { actorId, modules })).token;
    },
    async allMessages(roomId) {
      const all: ChatMessage[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `after=0&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const res = await call(t.app, {
          method: 'GET',
          url: `/v1/rooms/${roomId}/messages?${query}`,
          headers,
        });
        if (res.statusCode !== 200) throw new Error(`listing ${roomId}: ${res.statusCode} ${res.body}`);
        const page = res.json<{ data: ChatMessage[]; nextCursor: string | null }>();
        all.push(...page.data);
        cursor = page.nextCursor;
      } while (cursor !== null);
      return all;
    },
    close: () => t.close(),
  };
}

/** An SDK client for Node (`ws`), with its `getToken` calls counted. */
export function nodeRealtime(
  baseUrl: string,
  getToken: () => Promise<string>,
  options: Partial<RealtimeOptions> = {},
): { rt: Realtime; tokens: () => number } {
  let calls = 0;
  const rt = createRealtime({
    baseUrl,
    getToken: () => {
      calls += 1;
      return getToken();
    },
    WebSocket,
    ...options,
  });
  return { rt, tokens: () => calls };
}

/** Posts a message through REST with the tenant's API key, as `actorId`. */
export async function postMessage(svc: RealtimeService, roomId: string, text: string): Promise<ChatMessage> {
  const res = await call(svc.t.app, {
    method: 'POST',
    url: `/v1/rooms/${roomId}/messages`,
    headers: { authorization: `Bearer ${svc.tenant.apiKey}` },
    payload: { text, actor: { type: 'end_user', id: 'test:rest', identityProvider: 'test' } },
  });
  if (res.statusCode !== 201) throw new Error(`POST message: ${res.statusCode} ${res.body}`);
  return res.json<ChatMessage>();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A service with a TCP proxy in front of it (the test cuts the proxy), opened before the file's tests and
 * closed after them, the clients the tests made first; `use` receives both once they are up.
 */
export function withProxiedService(
  clients: readonly Realtime[],
  use: (svc: RealtimeService, proxy: TcpProxy) => void,
): void {
  let opened: { svc: RealtimeService; proxy: TcpProxy } | undefined;
  before(async () => {
    const svc = await startService();
    opened = { svc, proxy: await TcpProxy.start([svc.port]) };
    use(opened.svc, opened.proxy);
  });
  after(async () => {
    for (const rt of clients) rt.close();
    await opened?.proxy.close();
    await opened?.svc.close();
  });
}
