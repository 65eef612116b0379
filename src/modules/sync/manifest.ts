import { ALL_WORKSPACES, defineAction, type ModuleManifest } from '../../core/modules/manifest.ts';
import { SyncHub } from './hub.ts';
import { DEFAULT_SYNC_LIMITS, type SyncLimits } from './limits.ts';
import { ROOM_DELETED, roomDeletionOutbox } from './room-deletion.ts';
import { syncRestRoutes } from './routes.ts';
import { Applied, ApplyUpdateInput, DocumentJson, DocumentRef, SyncConfig } from './schema.ts';
import { syncSocketRoute } from './socket-route.ts';
import { DOCUMENT_UPDATED } from './store.ts';
import { applyDocumentUpdate } from './verbs/apply-document-update.ts';
import { getDocument } from './verbs/get-document.ts';

/**
 * The sync module with instance limits of its own (tests shorten them); `syncModule` uses the defaults and
 * the configured caps (`SVC_SYNC_*`, config.ts).
 */
export function syncModuleWith(
  overrides: Partial<SyncLimits> = {},
  /** Tests: each app's hub as it is built (its counters, its documents). */
  observe?: (hub: SyncHub) => void,
): ModuleManifest {
  return {
    name: 'sync',
    title: 'Realtime sync',
    description:
      'Shared Yjs documents in rooms that the stock y-websocket provider edits, durable in PostgreSQL, across instances.',
    version: '1.0.0',
    scopes: ['sync:read', 'sync:write'],
    sessionScopes: ['sync:read', 'sync:write'],
    eventTypes: [DOCUMENT_UPDATED],
    configSchema: SyncConfig,
    migrations: new URL('./migrations/', import.meta.url),
    // One hub per app, in its hooks: the gateway keeps its sockets (the raw socket route), and a deleted
    // room takes its documents with it (in its own transaction) and their sockets close (4404).
    hooks: (host) => {
      const limits: SyncLimits = { ...DEFAULT_SYNC_LIMITS, ...host.config.sync, ...overrides };
      const hub = new SyncHub({ services: host, limits, log: host.log });
      observe?.(hub);
      host.metrics?.watchOpenDocuments(() => hub.stats.openDocuments);
      return {
        outbox: roomDeletionOutbox((keys) => {
          hub.documentsDeleted(keys).catch((error: unknown) => {
            host.log.error(
              { err: error, event: ROOM_DELETED },
              'closing the sockets of deleted sync documents',
            );
          });
        }),
        realtime: { sockets: [syncSocketRoute(host, hub, limits)] },
      };
    },
    routes: syncRestRoutes,
    actions: [
      defineAction({
        name: 'get_document',
        title: "Read a room's shared document",
        description: "The room's Yjs document as JSON: each root type by name (maps, arrays, texts).",
        input: DocumentRef,
        output: DocumentJson,
        scope: 'sync:read',
        route: 'getSyncDocument',
        credentials: ['api_key', 'session'],
        access: 'read',
        confirmation: 'never',
        workspaceTypes: ALL_WORKSPACES,
        run: getDocument,
      }),
      defineAction({
        name: 'apply_document_update',
        title: "Edit a room's shared document",
        description:
          'Apply a Yjs update (base64) to the room’s document; it is stored, then every connected client receives it.',
        input: ApplyUpdateInput,
        output: Applied,
        scope: 'sync:write',
        route: 'applySyncDocumentUpdate',
        credentials: ['api_key', 'session'],
        access: 'write',
        confirmation: 'never',
        workspaceTypes: ALL_WORKSPACES,
        run: applyDocumentUpdate,
      }),
    ],
  };
}

export const syncModule: ModuleManifest = syncModuleWith();
