import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';

/** A message as the API answers it; its author is the shared Actor object. */
export interface Message {
  id: string;
  seq: number;
  text: string;
  author: { type: string; id: string; identityProvider: string };
  reactions: { emoji: string; count: number }[];
  revision: number;
  editedAt: string | null;
  deletedAt: string | null;
}

/** The test file's app: built before its tests, closed after them; `app()` inside a test answers it. */
export function appPerFile(): () => TestApp {
  let built: TestApp | undefined;
  before(async () => {
    built = await buildTestApp();
  });
  after(async () => built?.close());
  return () => {
    if (built === undefined) throw new Error('the app is built before the tests run');
    return built;
  };
}

/** The actor tests' API keys post as. */
export const BOT = { type: 'agent', id: 'test:bot', identityProvider: 'test' } as const;

export async function tenantWithRoom(t: TestApp): Promise<TestTenant & { roomId: string }> {
  const tenant = await createTestTenant(t);
  const roomId = `room-${Math.random().toString(36).slice(2)}`;
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/rooms',
    headers: bearer(tenant.apiKey),
    payload: { id: roomId },
  });
  assert.equal(res.statusCode, 201);
  return { ...tenant, roomId };
}

export async function send(t: TestApp, key: string, roomId: string, payload: Record<string, unknown>) {
  return call(t.app, { method: 'POST', url: `/v1/rooms/${roomId}/messages`, headers: bearer(key), payload });
}
