import type { SyncInstanceConfig } from '../../config.ts';

/**
 * Close codes of `/v1/sync/:roomId`, part of its public protocol (docs/sync.md). The stock y-websocket
 * provider (3.x) stops reconnecting on 4400-4499 and emits `closed`; every other code makes it reconnect
 * with backoff.
 */
export const SYNC_CLOSE = {
  /** A text frame: the protocol is binary. */
  unsupported: 1003,
  /** A binary frame that is not a y-websocket message, or an update that is not a Yjs update. */
  malformed: 1007,
  /** A frame over `maxFrameBytes`. */
  tooBig: 1009,
  /** A server fault (the database refused an append): reconnect, the edit is sent again. */
  internalError: 1011,
  /** The instance is shutting down: reconnect (another instance takes the document). */
  restart: 1012,
  /**
   * Try again later: the client reads too slowly (its send buffer passed the limit), or the document
   * already has `maxConnectionsPerDocument` connections on this instance. Reconnect (with backoff).
   */
  tryAgainLater: 1013,
  /** The credential expired or was revoked (a session token, the API key that minted it, an API key). */
  unauthorized: 4401,
  /** The tenant switched the sync module off. */
  forbidden: 4403,
  /** The room was deleted, and its documents with it. */
  roomDeleted: 4404,
  /**
   * The update would grow the document past `maxDocumentBytes`, or an awareness state is over
   * `maxAwarenessStateBytes` / `maxAwarenessDepth`, or one connection introduced more than
   * `maxAwarenessClientsPerConnection` client ids.
   */
  documentTooLarge: 4413,
  /** More messages per second than `maxUpdatesPerSecond` allows (after its burst). */
  rateLimited: 4429,
} as const;

/**
 * Limits of one instance: those set by `SVC_SYNC_*` (`SyncInstanceConfig`) and the protocol's own (the
 * tenant's own limits are the module's configuration, `SyncConfig`).
 */
export interface SyncLimits extends SyncInstanceConfig {
  /** Frames larger than this close the connection with 1009 (at most the WebSocket server's ceiling). */
  maxFrameBytes: number;
  /** Every connection is pinged this often; one that did not answer the previous ping is dropped. */
  pingIntervalMs: number;
  /**
   * While connections are open: how often each one's access is checked again, so a tenant that switched
   * the module off (4403) or a token revoked on another instance (4401) ends its connections in this time.
   */
  accessCheckIntervalMs: number;
  /** Connections to one document on this instance; one more is closed with 1013 (try again later). */
  maxConnectionsPerDocument: number;
  /** Bytes waiting to be sent to one client before it counts as too slow (closed with 1013). */
  maxBufferedBytes: number;
  /** Log rows of a document after which it is compacted (after `compactDelayMs` of quiet). */
  compactAfterUpdates: number;
  compactDelayMs: number;
  /**
   * With a shared backplane (Redis): how often each open document is read again from the database, so an
   * update whose message was lost (a dropped connection, a crashed instance) still arrives.
   */
  resyncIntervalMs: number;
}

export const DEFAULT_SYNC_LIMITS: SyncLimits = {
  maxFrameBytes: 1024 * 1024,
  maxOpenDocuments: 10_000,
  maxDocumentsPerTenant: 2_000,
  maxConnections: 20_000,
  maxConnectionsPerTenant: 4_000,
  maxConnectionsPerActor: 100,
  maxAwarenessStateBytes: 16 * 1024,
  maxAwarenessDepth: 32,
  maxAwarenessClientsPerConnection: 4,
  pingIntervalMs: 30_000,
  accessCheckIntervalMs: 30_000,
  maxConnectionsPerDocument: 500,
  maxBufferedBytes: 8 * 1024 * 1024,
  compactAfterUpdates: 500,
  compactDelayMs: 5_000,
  resyncIntervalMs: 30_000,
};
