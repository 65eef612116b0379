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
 * The app's one WebSocket server. Every WebSocket route of the app shares it (a second registration would
 * route each upgrade twice), so it is registered here only when nobody has yet.
 */
async function ensureWebSocketServer(
  app: FastifyInstance,
  limits: GatewayLimits,
  maxPayload: number,
): Promise<void> {
  if (app.hasDecorator('websocketServer')) return;
  await app.register(websocket, {
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
}

/**
 * An upgrade refused before @fastify/websocket's own hooks ran (the authenticate hook runs first) gets
 * its HTTP answer but keeps its socket: the HTTP server no longer manages an upgrade socket, so nothing
 * would ever close it, and an unauthenticated client could hold it forever (and stall shutdown).
 */
function closeRefusedUpgrades(app: FastifyInstance): void {
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket?.destroy();
    done();
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
  await ensureWebSocketServer(app, limits, maxPayload);
  closeRefusedUpgrades(app);
  for (const route of gateway.socketRoutes) route.register(app);
  gateway.start();
  options.drain?.add('sockets', () => gateway.drain(config.drainWindowMs));
  app.addHook('preClose', () => gateway.shutdown());
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
    handler: async () => describeEndpoint(config.publicUrl, limits),
    wsHandler: (socket, request) => gateway.accept(socket, request),
  });
}

export const realtimeGateway = fp(realtimeGatewayPlugin, { name: 'svc-realtime-gateway', fastify: '5.x' });
