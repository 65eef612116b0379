import type { RawData } from 'ws';
import { CLOSE } from '../close-codes.ts';
import type { Connection } from '../connection.ts';
import { errorFrameFor } from '../frame-errors.ts';
import { encode, errorFrame } from '../frames.ts';
import type { Gateway } from '../gateway.ts';
import { type ClientFrame, parseFrame } from '../protocol.ts';
import { handleChatSend } from './chat-send.ts';
import { handleJoin } from './join.ts';
import { handleLeave } from './leave.ts';
import { handlePresence } from './presence.ts';
import { handleTyping } from './typing.ts';

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
  let frame: ClientFrame;
  try {
    frame = parseFrame(text(data));
  } catch (error) {
    connection.send(errorFrameFor(error, undefined, connection.log));
    return;
  }
  if (frame.type === 'ping') {
    connection.send(encode({ type: 'pong', ...(frame.ref === undefined ? {} : { ref: frame.ref }) }));
    return;
  }
  const queued = connection.enqueue(() => run(gateway, connection, frame));
  if (!queued) {
    connection.send(
      errorFrame('rate_limited', 'too many frames waiting to be handled; slow down', frame.ref),
    );
  }
}

async function run(gateway: Gateway, connection: Connection, frame: ClientFrame): Promise<void> {
  if (!connection.isOpen) return;
  try {
    switch (frame.type) {
      case 'join':
        return await handleJoin(gateway, connection, frame);
      case 'leave':
        return await handleLeave(gateway, connection, frame);
      case 'presence':
        return await handlePresence(gateway, connection, frame);
      case 'chat.send':
        return await handleChatSend(gateway, connection, frame);
      case 'typing':
        return await handleTyping(gateway, connection, frame);
      case 'ping':
        return;
    }
  } catch (error) {
    const ref = frame.ref ?? (frame.type === 'chat.send' ? frame.clientId : undefined);
    connection.send(errorFrameFor(error, ref, connection.log));
  }
}
