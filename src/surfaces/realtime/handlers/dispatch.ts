import type { RawData } from 'ws';
import { ServiceUnavailable } from '../../../core/http/errors.ts';
import { CLOSE } from '../close-codes.ts';
import type { Connection } from '../connection.ts';
import { errorFrameFor } from '../frame-errors.ts';
import { encode, errorFrame } from '../frames.ts';
import type { Gateway } from '../gateway.ts';
import type { ClientFrame } from '../protocol.ts';
import { handleJoin } from './join.ts';
import { handleLeave } from './leave.ts';

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data.byteLength;
}

function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}

/**
 * Every frame a client sends enters here: size, rate limit and shape are checked at once, then the frame
 * is handled in order after the client's earlier frames. Nothing a client sends can throw out of here.
 */
export function handleFrame(
  gateway: Gateway,
  connection: Connection,
  data: RawData,
  isBinary: boolean,
): void {
  connection.lastHeardAt = gateway.clock.now();
  if (!connection.isOpen) return;
  // The WebSocket server enforces a size limit too; this one holds even if it was set higher for others.
  if (byteLength(data) > gateway.limits.maxFrameBytes) {
    connection.close(CLOSE.tooBig, `frames are limited to ${gateway.limits.maxFrameBytes} bytes`);
    return;
  }
  const admission = connection.admit();
  if (admission === 'flooding') {
    connection.close(CLOSE.rateLimited, 'too many frames after being told to slow down');
    return;
  }
  if (admission === 'refused') {
    if (connection.mayWarn()) {
      connection.send(
        errorFrame('rate_limited', 'too many frames: this one and the next were dropped', undefined),
      );
    }
    return;
  }
  if (isBinary) {
    connection.send(errorFrame('invalid_frame', 'send text frames holding JSON', undefined));
    return;
  }
  let parsed: ClientFrame;
  try {
    parsed = gateway.protocol.parse(text(data));
  } catch (error) {
    connection.send(errorFrameFor(error, undefined, connection.log));
    return;
  }
  const { ref } = parsed.frame;
  if (parsed.kind === 'ping') {
    connection.send(encode({ type: 'pong', ...(ref === undefined ? {} : { ref }) }));
    return;
  }
  const queued = connection.enqueue(() => run(gateway, connection, parsed));
  if (!queued) {
    connection.send(errorFrame('rate_limited', 'too many frames waiting to be handled; slow down', ref));
  }
}

/** Runs a module's frame after the one authorization rule (module on, token minted for it, scope, room). */
async function runModuleFrame(
  gateway: Gateway,
  connection: Connection,
  parsed: Extract<ClientFrame, { kind: 'module' }>,
): Promise<void> {
  const { handler, frame } = parsed;
  const roomId = 'room' in frame && typeof frame.room === 'string' ? frame.room : undefined;
  await gateway.authorize(connection, { ...handler.access, roomId, name: `the ${frame.type} frame` });
  await handler.handle(gateway, connection, frame);
}

/**
 * A join or a module's frame needs the backplane (Redis with REDIS_URL): a join subscribes and enters
 * presence, a module's frame is answered through the room's channel (chat.send has no other answer).
 * While it is down such a frame is refused at once, before anything is stored, and the client retries.
 */
function requireBackplane(gateway: Gateway, parsed: ClientFrame): void {
  if (parsed.kind !== 'join' && parsed.kind !== 'module') return;
  if (gateway.backplane.connected()) return;
  throw new ServiceUnavailable(
    'realtime is unavailable: Redis (REDIS_URL) does not answer; nothing was done, retry shortly',
    { expected: true },
  );
}

async function run(gateway: Gateway, connection: Connection, parsed: ClientFrame): Promise<void> {
  if (!connection.isOpen) return;
  // From the moment a revocation (or expiry) is known here, the token's frames are not acted on.
  if (!(await gateway.checkSession(connection))) return;
  try {
    requireBackplane(gateway, parsed);
    switch (parsed.kind) {
      case 'join':
        return await handleJoin(gateway, connection, parsed.frame);
      case 'leave':
        return await handleLeave(gateway, connection, parsed.frame);
      case 'module':
        return await runModuleFrame(gateway, connection, parsed);
      case 'ping':
        return;
    }
  } catch (error) {
    const { frame } = parsed;
    const ref = frame.ref ?? (parsed.kind === 'module' ? parsed.handler.errorRef?.(frame) : undefined);
    connection.send(errorFrameFor(error, ref, connection.log));
  }
}
