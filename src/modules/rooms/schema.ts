import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';

export const METADATA_LIMITS = { keys: 50, keyLength: 40, stringLength: 256 } as const;
const KEY = `^[A-Za-z0-9_.:-]{1,${METADATA_LIMITS.keyLength}}$`;

const MetadataValue = Type.Union([
  Type.String({ maxLength: METADATA_LIMITS.stringLength }),
  Type.Number(),
  Type.Boolean(),
]);

export const Metadata = Type.Object(
  {},
  {
    maxProperties: METADATA_LIMITS.keys,
    propertyNames: { pattern: KEY },
    additionalProperties: MetadataValue,
    description: `Up to ${METADATA_LIMITS.keys} keys (<= ${METADATA_LIMITS.keyLength} chars); values are strings (<= ${METADATA_LIMITS.stringLength} chars), numbers or booleans`,
  },
);

/** PATCH: a null value removes the key. */
export const MetadataPatch = Type.Object(
  {},
  {
    maxProperties: 100,
    propertyNames: { pattern: KEY },
    additionalProperties: Type.Union([MetadataValue, Type.Null()]),
  },
);

export const RoomId = Type.String({
  pattern: ROOM_ID_PATTERN,
  description: 'room_... or your own URL-safe id (<= 128)',
});

export const Room = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Object({}, { additionalProperties: true }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const CreateRoomInput = Type.Object(
  {
    id: Type.Optional(RoomId),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const UpdateRoomInput = Type.Object(
  {
    roomId: RoomId,
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    metadata: Type.Optional(MetadataPatch),
  },
  { additionalProperties: false },
);

export const RoomRef = Type.Object({ roomId: RoomId }, { additionalProperties: false });

export const ListRoomsInput = Type.Object(
  {
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          propertyNames: { pattern: KEY },
          additionalProperties: Type.String({ maxLength: METADATA_LIMITS.stringLength }),
          maxProperties: 10,
          description: 'Only rooms whose metadata has every one of these key=value pairs',
        },
      ),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const RoomPage = Type.Object({
  data: Type.Array(Room),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

export const RoomsConfig = Type.Object(
  {
    maxRooms: Type.Integer({
      minimum: 1,
      maximum: 10_000_000,
      default: 100_000,
      description: 'Rooms a tenant may hold',
    }),
  },
  { additionalProperties: false },
);
