import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { closedInput, dateTime, resource } from '../../core/http/named-schemas.ts';
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

export const Room = resource('Room', 'A named space people and agents join, with its metadata', {
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Object({}, { additionalProperties: true }),
  createdAt: dateTime(),
  updatedAt: dateTime(),
});

export const CreateRoomInput = closedInput(
  'CreateRoomInput',
  'A new room: its id (generated when left out), name and metadata',
  {
    id: Type.Optional(RoomId),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metadata: Type.Optional(Metadata),
  },
);

const roomChanges = {
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  metadata: Type.Optional(MetadataPatch),
};

/** PATCH /v1/rooms/{roomId}: the fields to change. */
export const UpdateRoomInput = closedInput(
  'UpdateRoomInput',
  'A new name (null clears it) and metadata to merge (a null value removes a key)',
  roomChanges,
);

/** The update_room action: the room and its changes in one object. */
export const UpdateRoomArguments = closedInput(
  'UpdateRoomArguments',
  'The room to change, a new name and metadata to merge',
  { roomId: RoomId, ...roomChanges },
);

export const RoomRef = closedInput('RoomRef', 'A room by its id', { roomId: RoomId });

/** `metadata.<key>=<value>` query parameters, as the REST route documents them. */
export const METADATA_QUERY_PATTERN = `^metadata\\.[A-Za-z0-9_.:-]{1,${METADATA_LIMITS.keyLength}}$`;
export const MAX_METADATA_FILTERS = 10;

export const ListRoomsInput = closedInput(
  'ListRoomsInput',
  'A page of rooms, optionally only those with the given metadata',
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
);

export const RoomPage = Page(Room, 'RoomPage', 'A page of rooms, newest first');
export const Deleted = resource('DeletedRoom', 'The room is deleted', {
  id: Type.String(),
  deleted: Type.Literal(true),
});

export const RoomsConfig = closedInput('RoomsConfig', "The rooms module's settings for a tenant", {
  maxRooms: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 100_000,
    description: 'Rooms a tenant may hold',
  }),
});
