import assert from 'node:assert/strict';
import { bearer, createTestTenant, type TestTenant } from '../../../../test/factories.ts';
import { buildTestApp, call, type TestApp } from '../../../../test/helper.ts';
import { suiteFixture } from '../../../../test/support/suite.ts';

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

/** What a chat test file opens once: an app, and a fresh tenant with a room for each test that asks. */
export interface ChatSuite {
  /** The app, inside a test. */
  app(): TestApp;
  /** A new tenant of the app with one room of its own. */
  room(): Promise<{ t: TestApp; tenant: TestTenant & { roomId: string } }>;
}

/** Builds the test file's app before its tests and closes it after them. */
export function chatSuite(): ChatSuite {
  const app = suiteFixture(
    'chat test app',
    () => buildTestApp(),
    (t) => t.close(),
  );
  return {
    app,
    async room() {
      const t = app();
      return { t, tenant: await tenantWithRoom(t) };
    },
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
