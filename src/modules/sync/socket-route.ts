import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { queryToken } from '../../core/auth/authenticate.ts';
import { hasScope } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { AppError } from '../../core/http/errors.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { assertRoomExists } from '../rooms/port.ts';
import type { SyncSession } from './connection.ts';
import { documentKey } from './document-key.ts';
import type { SyncHub } from './hub.ts';
import type { SyncLimits } from './limits.ts';
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

const SyncEndpoint = Type.Object({
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
});

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
    503: errorRef(
      'This instance holds as many open documents or connections as it may, or is shutting down; retry',
    ),
  },
});

/** The credential as sent (header first, as the authenticate hook reads it). */
function presentedToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? queryToken(request);
}

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

/** `GET /v1/sync/:roomId[/:docName]`: the y-websocket endpoint. */
export async function syncSocketRoutes(
  app: FastifyInstance,
  services: Services,
  hub: SyncHub,
  limits: SyncLimits,
) {
  // What the HTTP phase of an upgrade worked out (room checked, config read), for its socket.
  const admitted = new WeakMap<FastifyRequest, SyncSession>();

  const admit = async (request: FastifyRequest): Promise<void> => {
    const ctx = requestContext(request, services, 'realtime');
    const { roomId, docName } = roomAndDoc(request);
    await assertRoomExists(ctx, roomId);
    // A plain GET is answered by the handler: where to connect, and the limits.
    if (!request.ws) return;
    const principal = request.principal;
    const token = presentedToken(request);
    if (principal === undefined || token === undefined) {
      throw new AppError('unauthorized', 'send a session token minted for the sync module');
    }
    const key = documentKey(ctx.tenantId, roomId, docName);
    // The slot is held as long as the TCP connection: given back however it ends.
    const release = hub.admit(key, { principal });
    const socket = request.raw.socket;
    if (socket.closed) release();
    else socket.once('close', release);
    const config = await services.enablement.config<{
      maxDocumentBytes: number;
      syncEventThrottleSeconds: number;
      maxUpdatesPerSecond: number;
    }>(ctx.tenantId, 'sync', SyncConfig);
    admitted.set(request, {
      key,
      principal,
      token,
      canWrite: hasScope(principal, 'sync:write'),
      ctx,
      maxDocumentBytes: config.maxDocumentBytes,
      eventThrottleMs: config.syncEventThrottleSeconds * 1000,
      updatesPerSecond: config.maxUpdatesPerSecond,
    });
  };

  for (const url of ['/v1/sync/:roomId', '/v1/sync/:roomId/:docName']) {
    app.route({
      method: 'GET',
      url,
      exposeHeadRoute: false,
      config: {
        module: 'sync',
        auth: { credentials: ['session', 'api_key'], queryToken: true, scope: 'sync:read' },
      },
      schema: routeSchema(url.endsWith(':docName')),
      preHandler: admit,
      // Only a request without `Upgrade: websocket` gets here.
      handler: async (request) => {
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
      },
      wsHandler: (socket, request) => {
        const session = admitted.get(request);
        if (session === undefined) {
          socket.close(4401, 'a session token is required');
          return;
        }
        hub.accept(socket, session);
      },
    });
  }
}
