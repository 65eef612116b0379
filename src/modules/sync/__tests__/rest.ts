import assert from 'node:assert/strict';
import * as Y from 'yjs';
import { call, type Response, type TestApp } from '../../../../test/helper.ts';
import type { SyncTenant } from './support.ts';

/** The REST side of sync in tests: the document routes, and the calls that end a document's sockets. */

/** GET /v1/rooms/:roomId/ydoc (the document as JSON) with `credential` as the bearer. */
export function getDocument(
  t: TestApp,
  credential: string,
  roomId: string,
  docName?: string,
): Promise<Response> {
  const query = docName === undefined ? '' : `?docName=${docName}`;
  return call(t.app, {
    method: 'GET',
    url: `/v1/rooms/${roomId}/ydoc${query}`,
    headers: { authorization: `Bearer ${credential}` },
  });
}

/** The tenant's document of its room as JSON (`data`), read with its API key. */
export async function documentData(
  t: TestApp,
  tenant: Pick<SyncTenant, 'apiKey' | 'roomId'>,
  docName?: string,
): Promise<Record<string, unknown>> {
  const res = await getDocument(t, tenant.apiKey, tenant.roomId, docName);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ data: Record<string, unknown> }>().data;
}

/** PUT /v1/rooms/:roomId/ydoc-binary: a binary Yjs update (`query` e.g. `?docName=notes`). */
export function putUpdate(
  t: TestApp,
  tenant: Pick<SyncTenant, 'apiKey' | 'roomId'>,
  query: string,
  body: Buffer,
): Promise<Response> {
  return call(t.app, {
    method: 'PUT',
    url: `/v1/rooms/${tenant.roomId}/ydoc-binary${query}`,
    headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/octet-stream' },
    payload: body,
  });
}

/** A Yjs update that inserts `text` into the Y.Text `t` of a new document. */
export function textUpdate(text: string): Buffer {
  const doc = new Y.Doc();
  doc.getText('t').insert(0, text);
  return Buffer.from(Y.encodeStateAsUpdate(doc));
}

/** POST /v1/runtime/sessions/revoke: the session ends (its sockets close with 4401). */
export async function revokeSession(t: TestApp, apiKey: string, sessionId: string): Promise<void> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/runtime/sessions/revoke',
    headers: { 'x-api-key': apiKey },
    payload: { sessionId },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** DELETE /v1/rooms/:roomId: the room and its documents go (their sockets close with 4404). */
export async function deleteRoom(t: TestApp, apiKey: string, roomId: string): Promise<void> {
  const res = await call(t.app, {
    method: 'DELETE',
    url: `/v1/rooms/${roomId}`,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** The data of the tenant's `sync.document.updated` events (GET /v1/events) of its room. */
export async function documentEvents(
  t: TestApp,
  tenant: Pick<SyncTenant, 'apiKey' | 'roomId'>,
): Promise<{ roomId: string; docName: string; updatedAt: string }[]> {
  const res = await call(t.app, {
    method: 'GET',
    url: '/v1/events?type=sync.document.updated',
    headers: { authorization: `Bearer ${tenant.apiKey}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res
    .json<{ data: { type: string; data: { roomId: string; docName: string; updatedAt: string } }[] }>()
    .data.map((e) => e.data)
    .filter((d) => d.roomId === tenant.roomId);
}
