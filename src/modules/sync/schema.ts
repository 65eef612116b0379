import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { resource } from '../../core/http/named-schemas.ts';

export const DEFAULT_DOC_NAME = 'default';
export const DOC_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';

export const RoomId = Type.String({
  pattern: ROOM_ID_PATTERN,
  description: 'The room the document belongs to',
});
export const DocName = Type.String({
  pattern: DOC_NAME_PATTERN,
  description: `One of the room's documents (default \`${DEFAULT_DOC_NAME}\`)`,
});
/** A Yjs update or state vector, base64 (standard alphabet, padding optional). */
export const Base64 = Type.String({
  pattern: '^[A-Za-z0-9+/]*={0,2}$',
  maxLength: 14_000_000,
  description: 'Bytes as base64',
});

export const SyncConfig = Type.Object(
  {
    syncEventThrottleSeconds: Type.Integer({
      minimum: 1,
      maximum: 86_400,
      default: 5,
      description: 'At most one `sync.document.updated` per document per this many seconds',
    }),
    maxDocumentBytes: Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      default: 10 * 1024 * 1024,
      description:
        'An update that would grow a document past this is refused (WebSocket close 4413, HTTP 413)',
    }),
    maxUpdatesPerSecond: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 60,
      description:
        'Sustained messages per second per connection (burst: twice as many); more close it with 4429',
    }),
  },
  { additionalProperties: false },
);

/** Where the document is: a room, and one of its documents. */
export const DocumentRef = Type.Object(
  { roomId: RoomId, docName: Type.Optional(DocName) },
  { additionalProperties: false },
);

export const RoomParams = Type.Object({ roomId: RoomId });
export const SyncParams = Type.Object({ roomId: RoomId, docName: Type.Optional(DocName) });
export const DocQuery = Type.Object({ docName: Type.Optional(DocName) }, { additionalProperties: false });
export const BinaryQuery = Type.Object(
  {
    docName: Type.Optional(DocName),
    stateVector: Type.Optional(
      Type.String({
        ...Base64,
        maxLength: 100_000,
        description:
          "A client's state vector (`Y.encodeStateVector`), base64 or base64url: only what it lacks is returned",
        pattern: '^[A-Za-z0-9+/_-]*={0,2}$',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DocumentJson = resource(
  'SyncDocument',
  "A room's document as JSON, read from its stored state",
  {
    roomId: Type.String(),
    docName: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Each root type by name as JSON: Y.Map as an object, Y.Array as an array, Y.Text and Y.XmlFragment as a string',
    }),
  },
);

export const ApplyUpdateInput = Type.Object(
  {
    roomId: RoomId,
    docName: Type.Optional(DocName),
    update: {
      ...Base64,
      description: 'A Yjs update (`Y.encodeStateAsUpdate`, or a doc `update` event), base64',
    },
  },
  { additionalProperties: false },
);

export const Applied = resource('SyncUpdateApplied', 'A Yjs update applied to a document', {
  roomId: Type.String(),
  docName: Type.String(),
  bytes: Type.Integer({ description: 'Size of the update applied' }),
});
