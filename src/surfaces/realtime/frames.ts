import type { ErrorDetail } from '../../core/http/errors.ts';
import { type EncodedFrame, encodeFrame, encodeFrameParts } from '../../core/realtime/contributions.ts';

/** A tenant event as sockets see it (without trace metadata, which is for the tenant's servers). */
export interface RoomEventView {
  id: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
}

/** The frames of the gateway itself; modules' frames are theirs (see their `realtime` hooks). */
export type GatewayFrame =
  | ({ type: 'joined'; room: string; ref?: string } & Record<string, unknown>)
  | { type: 'event'; room: string; event: RoomEventView }
  | { type: 'error'; code: string; message: string; ref?: string; details?: ErrorDetail[] }
  | { type: 'pong'; ref?: string };

export function encode(frame: GatewayFrame): EncodedFrame {
  return encodeFrame(frame);
}

/** The frame as its parts, for Connection.sendParts (a `joined` carrying a room's shared member list). */
export function encodeParts(frame: GatewayFrame): Buffer[] {
  return encodeFrameParts(frame);
}

export function errorFrame(
  code: string,
  message: string,
  ref: string | undefined,
  details?: ErrorDetail[],
): EncodedFrame {
  return encode({
    type: 'error',
    code,
    message,
    ...(ref === undefined ? {} : { ref }),
    ...(details === undefined || details.length === 0 ? {} : { details }),
  });
}
