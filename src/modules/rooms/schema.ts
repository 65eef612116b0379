import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { PAGE_QUERY, Page } from '../../core/http/pagination.ts';

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
const MetadataPatch = Type.Object(
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

export const Room = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Object({}, { additionalProperties: true }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Room', description: 'A named space people and agents join, with its metadata' },
);

export const CreateRoomInput = Type.Object(
  {
    id: Type.Optional(RoomId),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metadata: Type.Optional(Metadata),
  },
  {
    title: 'CreateRoomInput',
    description: 'A new room: its id (generated when left out), name and metadata',
    additionalProperties: false,
  },
);

const roomChanges = {
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  metadata: Type.Optional(MetadataPatch),
};

/** PATCH /v1/rooms/{roomId}: the fields to change. */
export const UpdateRoomInput = Type.Object(roomChanges, {
  title: 'UpdateRoomInput',
  description: 'A new name (null clears it) and metadata to merge (a null value removes a key)',
  additionalProperties: false,
});

/** The update_room action: the room and its changes in one object. */
export const UpdateRoomArguments = Type.Object(
  { roomId: RoomId, ...roomChanges },
  {
    title: 'UpdateRoomArguments',
    description: 'The room to change, a new name and metadata to merge',
    additionalProperties: false,
  },
);

export const RoomRef = Type.Object(
  { roomId: RoomId },
  { title: 'RoomRef', description: 'A room by its id', additionalProperties: false },
);

/** `metadata.<key>=<value>` query parameters, as the REST route documents them. */
export const METADATA_QUERY_PATTERN = `^metadata\\.[A-Za-z0-9_.:-]{1,${METADATA_LIMITS.keyLength}}$`;
export const MAX_METADATA_FILTERS = 10;

export const ListRoomsInput = Type.Object(
  {
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          propertyNames: { pattern: KEY },
          additionalProperties: Type.String({ maxLength: METADATA_LIMITS.stringLength }),
          maxProperties: MAX_METADATA_FILTERS,
          description: 'Only rooms whose metadata has every one of these key=value pairs',
        },
      ),
    ),
    ...PAGE_QUERY,
  },
  {
    title: 'ListRoomsInput',
    description: 'A page of rooms, optionally only those with the given metadata',
    additionalProperties: false,
  },
);

export const RoomPage = Page(Room, 'RoomPage', 'A page of rooms, newest first');
export const Deleted = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true) },
  { title: 'DeletedRoom', description: 'The room is deleted' },
);

export const RoomsConfig = Type.Object(
  {
    maxRooms: Type.Integer({
      minimum: 1,
      maximum: 10_000_000,
      default: 100_000,
      description: 'Rooms a tenant may hold',
    }),
  },
  {
    title: 'RoomsConfig',
    description: "The rooms module's settings for a tenant",
    additionalProperties: false,
  },
);
