import { randomUUID } from 'node:crypto';
import {
  bearer,
  type ConnectOptions,
  connectSession,
  createTestTenant,
  type TestTenant,
} from '../factories.ts';
import { call } from '../helper.ts';
import type { Instance } from './support.ts';

/** A tenant with a fresh room in it. */
export async function tenantWithRoom(t: Instance): Promise<TestTenant & { roomId: string }> {
  const tenant = await createTestTenant(t);
  const roomId = await createRoom(t, tenant.apiKey);
  return { ...tenant, roomId };
}

export async function createRoom(t: Instance, apiKey: string, id = `room-${randomUUID()}`): Promise<string> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/rooms',
    headers: bearer(apiKey),
    payload: { id },
  });
  if (res.statusCode !== 201) throw new Error(`room create failed: ${res.statusCode} ${res.body}`);
  return id;
}

export async function sessionToken(
  t: Instance,
  apiKey: string,
  options: ConnectOptions = {},
): Promise<string> {
  return (await connectSession(t, apiKey, options)).token;
}

export async function postMessage(
  t: Instance,
  apiKey: string,
  roomId: string,
  text: string,
  actor = 'test:server-bot',
): Promise<{ seq: number; id: string }> {
  const res = await call(t.app, {
    method: 'POST',
    url: `/v1/rooms/${roomId}/messages`,
    headers: bearer(apiKey),
    payload: { text, actor: { type: 'agent', id: actor, identityProvider: 'test' } },
  });
  if (res.statusCode !== 201) throw new Error(`post failed: ${res.statusCode} ${res.body}`);
  return res.json<{ seq: number; id: string }>();
}

async function changeMessage(
  t: Instance,
  apiKey: string,
  options: { method: 'PATCH' | 'DELETE' | 'POST'; url: string; payload?: Record<string, unknown> },
): Promise<void> {
  const res = await call(t.app, {
    method: options.method,
    url: options.url,
    headers: bearer(apiKey),
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });
  if (res.statusCode !== 200) throw new Error(`${options.method} failed: ${res.statusCode} ${res.body}`);
}

export async function editMessage(
  t: Instance,
  apiKey: string,
  roomId: string,
  messageId: string,
  text: string,
): Promise<void> {
  await changeMessage(t, apiKey, {
    method: 'PATCH',
    url: `/v1/rooms/${roomId}/messages/${messageId}`,
    payload: { text },
  });
}

export async function deleteMessage(t: Instance, apiKey: string, roomId: string, messageId: string) {
  await changeMessage(t, apiKey, { method: 'DELETE', url: `/v1/rooms/${roomId}/messages/${messageId}` });
}

export async function react(t: Instance, apiKey: string, roomId: string, messageId: string, emoji: string) {
  await changeMessage(t, apiKey, {
    method: 'POST',
    url: `/v1/rooms/${roomId}/messages/${messageId}/reactions/${encodeURIComponent(emoji)}?actor=test:fan`,
  });
}
