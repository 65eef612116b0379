import * as Y from 'yjs';
import { defineSecurity, oneRoom } from '../../../../test/support/security-suite.ts';

const room = { sessions: true, roomScoped: true, namesRecords: true } as const;

function anUpdate(): Buffer {
  const doc = new Y.Doc();
  doc.getText('t').insert(0, 'security');
  return Buffer.from(Y.encodeStateAsUpdate(doc));
}

/** The module's whole security coverage (run by security.test.ts, checked complete by test/platform). */
export const security = defineSecurity({
  module: 'sync',
  setup: async (t, tenant) => ({ ...(await oneRoom(t, tenant)), docName: 'notes' }),
  routes: [
    // Without `Upgrade: websocket`: where to connect (every check of the upgrade passed).
    { method: 'GET', url: (r) => `/v1/sync/${r.roomId}`, scope: 'sync:read', ...room },
    {
      method: 'GET',
      url: (r) => `/v1/sync/${r.roomId}/${r.docName}`,
      scope: 'sync:read',
      ...room,
    },
    { method: 'GET', url: (r) => `/v1/rooms/${r.roomId}/ydoc`, scope: 'sync:read', ...room },
    { method: 'GET', url: (r) => `/v1/rooms/${r.roomId}/ydoc-binary`, scope: 'sync:read', ...room },
    {
      method: 'PUT',
      url: (r) => `/v1/rooms/${r.roomId}/ydoc-binary`,
      payload: () => anUpdate(),
      scope: 'sync:write',
      ...room,
    },
  ],
});
