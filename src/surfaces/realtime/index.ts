import { type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { WebSocket } from 'ws';
import type { Identity } from '../../core/auth/identity.ts';
import type { Services } from '../../core/context.ts';
import type { InstalledHooks } from '../../core/modules/hooks.ts';
import type { Drain } from '../../core/ops/drain.ts';
import type { RealtimeBackplane } from '../../core/realtime/index.ts';
import { CLOSE } from './close-codes.ts';
import { describeEndpoint, endpointSchema } from './endpoint.ts';
import { Gateway } from './gateway.ts';
import { handleFrame } from './handlers/dispatch.ts';
import { DEFAULT_LIMITS, type GatewayLimits } from './limits.ts';
import { startRelays } from './relays.ts';

export { CLOSE } from './close-codes.ts';
export { DEFAULT_LIMITS, type GatewayLimits } from './limits.ts';

export interface RealtimeGatewayOptions {
  services: Services;
  identity: Identity;
  backplane: RealtimeBackplane;
  /** Every module's hooks: their `realtime` parts are the frames, join parts and relays of modules. */
  modules: readonly InstalledHooks[];
  limits?: Partial<GatewayLimits>;
  /** The instance's drain: the gateway's sockets are closed in batches over `SVC_DRAIN_WINDOW_MS`. */
  drain?: Drain;
}

/**
 * The app's one WebSocket server, registered in `scope`: @fastify/websocket's request hooks (`request.ws`,
 * closing an upgraded socket) and its handler wrapper then run on the socket routes registered there only,
 * not on every HTTP request of the app. An upgrade that reaches any other route is answered over HTTP and
 * its socket closed (`closeAnsweredUpgrades`). The server is also the app's `websocketServer` (metrics).
 */
async function registerWebSocketServer(
  app: FastifyInstance,
  scope: FastifyInstance,
  limits: GatewayLimits,
  maxPayload: number,
): Promise<void> {
  await scope.register(websocket, {
    options: { maxPayload },
    // Protocol errors (a frame over the limit, bad framing) already started a close with the right code;
    // a socket that does not finish closing is cut off after the grace period.
    errorHandler(error, socket, request) {
      request.log.debug({ err: error }, 'websocket error');
      if (socket.readyState === WebSocket.OPEN) socket.close(CLOSE.internalError, 'server error');
      setTimeout(() => socket.terminate(), limits.closeGraceMs).unref();
    },
    // Shutdown: every WebSocket of the app is told to reconnect elsewhere.
    preClose(done) {
      for (const client of this.websocketServer.clients) client.close(CLOSE.restart, 'server restarting');
      this.websocketServer.close();
      done();
    },
  });
  app.decorate('websocketServer', scope.websocketServer);
}

/**
 * An upgrade answered over HTTP (refused, or sent to a route that is no socket route) keeps its socket:
 * the HTTP server no longer manages an upgrade's socket, so nothing would ever close it, and an
 * unauthenticated client could hold it forever (and stall shutdown). @fastify/websocket answers an upgrade
 * through a response it assigns the socket to; when that response finishes, the socket is closed. An
 * accepted upgrade's response never finishes (the WebSocket takes the socket over).
 * A listener after @fastify/websocket's, rather than an `onResponse` hook on every HTTP route.
 */
function closeAnsweredUpgrades(server: Server): void {
  server.on('upgrade', (_request, socket: Socket & { _httpMessage?: unknown }) => {
    const response = socket._httpMessage;
    if (!(response instanceof ServerResponse)) return;
    if (response.writableFinished) socket.destroy();
    else response.once('finish', () => socket.destroy());
  });
}

/**
 * `GET /v1/realtime`: the WebSocket gateway (protocol in docs/realtime.md); and the modules' raw socket
 * routes (`/v1/sync/:roomId`), kept by the same gateway.
 */
async function realtimeGatewayPlugin(app: FastifyInstance, options: RealtimeGatewayOptions): Promise<void> {
  const { config } = options.services;
  const limits: GatewayLimits = {
    ...DEFAULT_LIMITS,
    maxConnections: config.realtimeMaxConnections,
    maxConnectionsPerActor: config.realtimeMaxConnectionsPerActor,
    maxRoomMembers: config.realtimeMaxRoomMembers,
    ...options.limits,
  };
  const gateway = new Gateway({
    ...options,
    limits,
    log: app.log.child({ surface: 'realtime' }),
    frames: handleFrame,
    relays: startRelays,
  });
  // The server's ceiling is the largest frame any route takes; each route enforces its own limit.
  const maxPayload = Math.max(limits.maxFrameBytes, ...gateway.socketRoutes.map((r) => r.maxFrameBytes));
  gateway.start();
  options.drain?.add('sockets', () => gateway.drain(config.drainWindowMs));
  app.addHook('preClose', () => gateway.shutdown());
  await app.register(async (scope) => {
    await registerWebSocketServer(app, scope, limits, maxPayload);
    for (const route of gateway.socketRoutes) route.register(scope);
    gatewayRoute(scope, gateway, config.publicUrl, limits);
  });
  closeAnsweredUpgrades(app.server);
}

/** `GET /v1/realtime`: the gateway's own socket route. */
function gatewayRoute(
  app: FastifyInstance,
  gateway: Gateway,
  publicUrl: string,
  limits: GatewayLimits,
): void {
  app.route({
    method: 'GET',
    url: '/v1/realtime',
    exposeHeadRoute: false,
    // The authenticate hook verifies the token before the upgrade: a refused one gets an HTTP 401/403.
    config: { auth: { credentials: ['session'], queryToken: true } },
    schema: endpointSchema(),
    // Over a connection cap: an HTTP 429 before the upgrade. Plain GETs hold no connection to count.
    preHandler(request, _reply, done) {
      if (!request.ws) return done();
      try {
        gateway.admit(request);
      } catch (error) {
        return done(error as Error);
      }
      done();
    },
    // Only a request without `Upgrade: websocket` gets here (an upgrade goes to `wsHandler`).
    handler: async () => describeEndpoint(publicUrl, limits),
    wsHandler: (socket, request) => gateway.accept(socket, request),
  });
}

export const realtimeGateway = fp(realtimeGatewayPlugin, { name: 'svc-realtime-gateway', fastify: '5.x' });
