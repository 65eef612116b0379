import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hasScope } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { AppError } from '../../core/http/errors.ts';
import { errorRef } from '../../core/http/schemas.ts';
import type { SocketRoute } from '../../core/realtime/socket-routes.ts';
import { assertRoomExists } from '../rooms/port.ts';
import type { SyncSession } from './connection.ts';
import { documentKey } from './document-key.ts';
import type { SyncHub } from './hub.ts';
import { SYNC_CLOSE, type SyncLimits } from './limits.ts';
import { DocName, RoomId, SyncConfig } from './schema.ts';

const DESCRIPTION = [
  'Upgrades to a WebSocket that speaks the y-websocket protocol byte for byte (binary frames: sync step 1, ' +
    'step 2, update, awareness, query-awareness), so the stock `y-websocket` `WebsocketProvider` connects ' +
    'unchanged: `new WebsocketProvider("wss://<host>/v1/sync", roomId, doc, { params: { token } })` — or ' +
    '`roomId/docName` for one of several documents of a room. Protocol, durability, limits and close codes ' +
    'in [docs/sync.md](docs/sync.md) in the service’s repository.',
  'The credential is a session token minted for the `sync` module (or, for servers, an API key with ' +
    '`sync:read`), in `?token=` or `Authorization: Bearer`. It is checked before the upgrade: a refusal is a plain HTTP error. A token without ' +
    '`sync:write` (minted with `scopes: ["sync:read"]`) reads and shares awareness; its updates are dropped.',
].join('\n\n');

const SyncEndpoint = Type.Object(
  {
    url: Type.String({ description: 'The WebSocket address of this document (from SVC_PUBLIC_URL)' }),
    limits: Type.Object({
      maxFrameBytes: Type.Integer({ description: 'Larger frames close the connection with 1009' }),
      pingIntervalMs: Type.Integer({
        description: 'How often the server pings; a peer missing one is dropped',
      }),
      maxDocumentBytes: Type.Integer({
        description: 'An update growing the document past this closes with 4413',
      }),
      maxUpdatesPerSecond: Type.Integer({
        description: 'Messages per second (burst twice that); more close with 4429',
      }),
      maxConnectionsPerDocument: Type.Integer({
        description: 'Connections to one document on one instance; one more is closed with 1013',
      }),
    }),
  },
  {
    title: 'SyncEndpoint',
    description: "Where to open a y-websocket connection to a room's document, and its limits",
  },
);

const routeSchema = (withDocName: boolean) => ({
  operationId: withDocName ? 'connectSyncDocument' : 'connectSync',
  summary: withDocName
    ? 'Open a y-websocket connection to one named document of a room'
    : "Open a y-websocket connection to a room's default document",
  description: DESCRIPTION,
  tags: ['sync'],
  params: withDocName ? Type.Object({ roomId: RoomId, docName: DocName }) : Type.Object({ roomId: RoomId }),
  querystring: Type.Object({
    token: Type.Optional(
      Type.String({ description: 'The session token, when not sent as Authorization: Bearer' }),
    ),
  }),
  response: {
    101: { description: 'Switching Protocols: the connection now speaks y-websocket', type: 'null' },
    200: { ...SyncEndpoint, description: 'Without the upgrade: where to connect and the limits' },
    404: errorRef('No such room in the token’s tenant'),
    429: errorRef(
      'The tenant’s or the actor’s share of this instance is full (connections or open documents); Retry-After says when to try again',
    ),
    503: errorRef('This instance holds as many open documents or connections as it may; retry'),
  },
});

/** The path's room and document (validated by the route's schema already). */
function roomAndDoc(request: FastifyRequest): { roomId: string; docName?: string } {
  const params: unknown = request.params;
  if (
    typeof params !== 'object' ||
    params === null ||
    !('roomId' in params) ||
    typeof params.roomId !== 'string'
  ) {
    throw new AppError('invalid_request', 'the path names no room');
  }
  const docName = 'docName' in params && typeof params.docName === 'string' ? params.docName : undefined;
  return docName === undefined ? { roomId: params.roomId } : { roomId: params.roomId, docName };
}

/** Where to connect and the limits, for a plain GET (no upgrade) of the route. */
async function describe(services: Services, limits: SyncLimits, request: FastifyRequest) {
  const { roomId, docName } = roomAndDoc(request);
  const config = await services.enablement.config<{
    maxDocumentBytes: number;
    maxUpdatesPerSecond: number;
  }>(requestContext(request, services).tenantId, 'sync', SyncConfig);
  const path = `/v1/sync/${roomId}${docName === undefined ? '' : `/${docName}`}`;
  return {
    url: `${services.config.publicUrl.replace(/^http/, 'ws')}${path}`,
    limits: {
      maxFrameBytes: limits.maxFrameBytes,
      pingIntervalMs: limits.pingIntervalMs,
      maxDocumentBytes: config.maxDocumentBytes,
      maxUpdatesPerSecond: config.maxUpdatesPerSecond,
      maxConnectionsPerDocument: limits.maxConnectionsPerDocument,
    },
  };
}

/**
 * `GET /v1/sync/:roomId[/:docName]`: the y-websocket endpoint, a raw socket route of the realtime gateway
 * (which authenticates the upgrade, caps the connections and keeps them); the hub speaks y-websocket on it.
 */
export function syncSocketRoute(services: Services, hub: SyncHub, limits: SyncLimits): SocketRoute {
  return {
    module: 'sync',
    urls: ['/v1/sync/:roomId', '/v1/sync/:roomId/:docName'],
    auth: { credentials: ['session', 'api_key'], scope: 'sync:read' },
    schema: (url) => routeSchema(url.endsWith(':docName')),
    limits,
    slowReaderClose: SYNC_CLOSE.tryAgainLater,
    instanceFull: 503,
    shareSettings: {
      tenant: 'SVC_SYNC_MAX_CONNECTIONS_PER_TENANT',
      actor: 'SVC_SYNC_MAX_CONNECTIONS_PER_ACTOR',
    },
    check: async (request) => {
      const ctx = requestContext(request, services, 'realtime');
      await assertRoomExists(ctx, roomAndDoc(request).roomId);
    },
    describe: (request) => describe(services, limits, request),
    start: () => hub.start(),
    stop: () => hub.close(),
    admit: async (request, { principal }) => {
      const ctx = requestContext(request, services, 'realtime');
      const { roomId, docName } = roomAndDoc(request);
      const key = documentKey(ctx.tenantId, roomId, docName);
      const release = hub.admit(key);
      try {
        const config = await services.enablement.config<{
          maxDocumentBytes: number;
          syncEventThrottleSeconds: number;
          maxUpdatesPerSecond: number;
        }>(ctx.tenantId, 'sync', SyncConfig);
        const session: SyncSession = {
          key,
          canWrite: hasScope(principal, 'sync:write'),
          ctx,
          maxDocumentBytes: config.maxDocumentBytes,
          eventThrottleMs: config.syncEventThrottleSeconds * 1000,
          updatesPerSecond: config.maxUpdatesPerSecond,
        };
        return { release, open: (socket) => hub.open(socket, session) };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
