import { type Env, integer } from './parse.ts';

/** `/v1/sync` limits of one instance (docs/sync.md). */
export interface SyncInstanceConfig {
  /** Documents held in memory at once on this instance; a connection to one more is refused with 503. */
  maxOpenDocuments: number;
  /** Documents one tenant holds open on this instance (below `maxOpenDocuments`); one more: HTTP 429. */
  maxDocumentsPerTenant: number;
  /** Sync connections of this instance; one more is refused with 503. */
  maxConnections: number;
  /** Sync connections of one tenant on this instance (below `maxConnections`); one more: HTTP 429. */
  maxConnectionsPerTenant: number;
  /** Sync connections of one actor (an API key counts as one) on this instance; one more: HTTP 429. */
  maxConnectionsPerActor: number;
  /** The JSON of one awareness state, in bytes; larger closes the connection with 4413. */
  maxAwarenessStateBytes: number;
  /** Nesting of one awareness state (objects and arrays); deeper closes the connection with 4413. */
  maxAwarenessDepth: number;
  /** Awareness client ids one connection may introduce; one more closes it with 4413. */
  maxAwarenessClientsPerConnection: number;
}

/** A tenant's share defaults to a fifth of the instance, and may be set to anything below the whole. */
export function syncLimits(env: Env): SyncInstanceConfig {
  const maxOpenDocuments = integer(env, 'SVC_SYNC_MAX_OPEN_DOCUMENTS', 10_000, 2, 1_000_000);
  const maxConnections = integer(env, 'SVC_SYNC_MAX_CONNECTIONS', 20_000, 2, 1_000_000);
  const share = (whole: number) => Math.max(1, Math.floor(whole / 5));
  const maxConnectionsPerTenant = integer(
    env,
    'SVC_SYNC_MAX_CONNECTIONS_PER_TENANT',
    share(maxConnections),
    1,
    maxConnections - 1,
  );
  return {
    maxOpenDocuments,
    maxDocumentsPerTenant: integer(
      env,
      'SVC_SYNC_MAX_DOCUMENTS_PER_TENANT',
      share(maxOpenDocuments),
      1,
      maxOpenDocuments - 1,
    ),
    maxConnections,
    maxConnectionsPerTenant,
    maxConnectionsPerActor: integer(
      env,
      'SVC_SYNC_MAX_CONNECTIONS_PER_ACTOR',
      Math.min(100, maxConnectionsPerTenant),
      1,
      maxConnectionsPerTenant,
    ),
    maxAwarenessStateBytes: integer(env, 'SVC_SYNC_MAX_AWARENESS_STATE_BYTES', 16_384, 64, 1_048_576),
    maxAwarenessDepth: integer(env, 'SVC_SYNC_MAX_AWARENESS_DEPTH', 32, 1, 1_000),
    maxAwarenessClientsPerConnection: integer(
      env,
      'SVC_SYNC_MAX_AWARENESS_CLIENTS_PER_CONNECTION',
      4,
      1,
      1_000,
    ),
  };
}
