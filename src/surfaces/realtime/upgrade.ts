import type { FastifyRequest } from 'fastify';
import { WebSocket } from 'ws';
import { CLOSE } from './close-codes.ts';

/**
 * Lets go of the upgrade's HTTP objects, which a socket would otherwise keep for its whole life (kilobytes
 * each): @fastify/websocket's error listener holds the request and its reply (headers, the upgrade's
 * head), and the TCP socket still points at the upgrade's ServerResponse. The socket's errors are then
 * handled as the app's WebSocket error handler does (index.ts): a close with 1011, cut off after the grace.
 */
export function releaseUpgrade(socket: WebSocket, request: FastifyRequest, closeGraceMs: number): void {
  const log = request.log;
  socket.removeAllListeners('error');
  socket.on('error', (error) => {
    log.debug({ err: error }, 'websocket error');
    if (socket.readyState === WebSocket.OPEN) socket.close(CLOSE.internalError, 'server error');
    setTimeout(() => socket.terminate(), closeGraceMs).unref();
  });
  const raw = request.raw.socket as (typeof request.raw.socket & { _httpMessage?: unknown }) | null;
  const response = raw?._httpMessage as { detachSocket?(socket: unknown): void } | null | undefined;
  if (raw !== null && typeof response?.detachSocket === 'function') response.detachSocket(raw);
}
