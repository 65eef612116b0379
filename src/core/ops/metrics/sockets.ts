import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ServiceMetrics, SocketSurface } from './service-metrics.ts';

/** `/v1/realtime`, or the module whose raw socket route (`/v1/sync/:roomId`) the upgrade went to. */
function surfaceOf(url: string | undefined): SocketSurface | undefined {
  if (url === undefined) return undefined;
  if (url === '/v1/realtime' || url.startsWith('/v1/realtime?')) return 'realtime';
  if (url.startsWith('/v1/sync/')) return 'sync';
  return undefined;
}

/**
 * Counts the app's WebSockets as the shared server hands them over (every WebSocket route of the app uses
 * one server): open connections, frames received, and how each ended. Frames sent and slow-consumer drops
 * are counted where they happen (the gateway's connections).
 */
export function observeSockets(server: WebSocketServer, metrics: ServiceMetrics): void {
  server.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const surface = surfaceOf(request.url);
    if (surface === undefined) return;
    const counts = metrics.sockets[surface];
    counts.open += 1;
    socket.on('message', () => {
      counts.framesIn += 1;
    });
    socket.once('close', (code: number) => {
      counts.open -= 1;
      counts.closed(code);
    });
  });
}
