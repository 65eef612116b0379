import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';

/** A member's state is the client's own JSON object, at most this many bytes as JSON. */
export const MAX_STATE_BYTES = 2048;

export const RoomId = Type.String({ pattern: ROOM_ID_PATTERN, description: 'The room' });

export const PresenceState = Type.Object(
  {},
  { additionalProperties: true, description: `Any JSON object, <= ${MAX_STATE_BYTES} bytes as JSON` },
);

export const Member = Type.Object({
  actor: Type.Object({
    id: Type.String({ description: 'Internal actor id' }),
    type: Type.String(),
    externalId: Type.String({ description: '<provider>:<external_id>' }),
  }),
  state: PresenceState,
  connections: Type.Integer({ minimum: 1, description: 'Open connections (tabs, devices) of this actor' }),
  joinedAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const MemberList = Type.Object({ data: Type.Array(Member, { description: 'In order of joining' }) });

export const PresenceRef = Type.Object({ roomId: RoomId }, { additionalProperties: false });

export const PresenceConfig = Type.Object({}, { additionalProperties: false });
