import { type Static, type TSchema, Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/runtime-routes.ts';
import { AppError, type ErrorDetail, InvalidRequest } from '../../core/http/errors.ts';
import { validated } from '../../core/modules/validate.ts';
import type { JsonObject } from '../../core/realtime/index.ts';
import { ClientId, MessageMetadata, MessageText } from '../../modules/chat/schema.ts';
import { PresenceState } from '../../modules/presence/schema.ts';

const Room = Type.String({ pattern: ROOM_ID_PATTERN });
/** The client's own reference for a frame, echoed in the `error` (or `joined`, `pong`) it causes. */
const Ref = Type.Optional(Type.String({ maxLength: 64 }));
const strict = { additionalProperties: false };

export const JoinFrame = Type.Object(
  {
    type: Type.Literal('join'),
    room: Room,
    presence: Type.Optional(PresenceState),
    /** Resume: the last `changeSeq` this client got in the room; every change after it is sent first. */
    changeSeq: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Resume, for clients that only keep message numbers: from the change that created message `seq`. */
    seq: Type.Optional(Type.Integer({ minimum: 0 })),
    ref: Ref,
  },
  strict,
);
export const LeaveFrame = Type.Object({ type: Type.Literal('leave'), room: Room, ref: Ref }, strict);
export const PresenceFrame = Type.Object(
  { type: Type.Literal('presence'), room: Room, state: PresenceState, ref: Ref },
  strict,
);
export const ChatSendFrame = Type.Object(
  {
    type: Type.Literal('chat.send'),
    room: Room,
    text: MessageText,
    clientId: Type.Optional(ClientId),
    metadata: Type.Optional(MessageMetadata),
    ref: Ref,
  },
  strict,
);
export const TypingFrame = Type.Object({ type: Type.Literal('typing'), room: Room, ref: Ref }, strict);
export const PingFrame = Type.Object({ type: Type.Literal('ping'), ref: Ref }, strict);

const SCHEMAS = {
  join: JoinFrame,
  leave: LeaveFrame,
  presence: PresenceFrame,
  'chat.send': ChatSendFrame,
  typing: TypingFrame,
  ping: PingFrame,
} satisfies Record<string, TSchema>;

export type FrameType = keyof typeof SCHEMAS;
export type ClientFrame = { [K in FrameType]: Static<(typeof SCHEMAS)[K]> }[FrameType];

/** A frame the gateway cannot read: answered with an `error` frame of code `invalid_frame`. */
export class InvalidFrame extends Error {
  constructor(
    message: string,
    readonly ref: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'InvalidFrame';
  }
}

function isFrameType(value: unknown): value is FrameType {
  return typeof value === 'string' && Object.hasOwn(SCHEMAS, value);
}

/** Text -> a checked client frame, or InvalidFrame saying what is wrong with it. Never throws anything else. */
export function parseFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidFrame('a frame must be a JSON object', undefined);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidFrame('a frame must be a JSON object', undefined);
  }
  const fields = value as Record<string, unknown>;
  const ref = typeof fields.ref === 'string' ? fields.ref.slice(0, 64) : undefined;
  if (!isFrameType(fields.type)) {
    throw new InvalidFrame(`unknown frame type; send one of ${Object.keys(SCHEMAS).join(', ')}`, ref, [
      { field: '/frame/type', message: 'is not a known frame type', code: 'unknown_type' },
    ]);
  }
  try {
    return validated<ClientFrame>(SCHEMAS[fields.type], value, 'frame');
  } catch (error) {
    if (error instanceof InvalidRequest) throw new InvalidFrame(error.message, ref, error.details);
    if (error instanceof AppError) throw new InvalidFrame(error.message, ref);
    throw error;
  }
}

/** A state object from a parsed frame: it came out of JSON.parse, so it is JSON all the way down. */
export function jsonState(state: object): JsonObject {
  return state as JsonObject;
}
