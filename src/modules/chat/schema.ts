import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { idPattern } from '../../core/ids.ts';
import { Actor } from '../../core/tenancy/actors.ts';

/** The hard ceiling; a tenant may configure a lower one. */
export const MAX_TEXT_LENGTH = 4000;
export const MAX_PAGE = 100;

export const RoomId = Type.String({ pattern: ROOM_ID_PATTERN, description: 'The room' });
export const MessageId = Type.String({ pattern: idPattern('message'), description: 'msg_...' });
export const Emoji = Type.String({
  pattern: '^[^\\s/?#%]{1,32}$',
  description: 'An emoji or a short name such as `+1` (<= 32 chars, no whitespace)',
});

export const MessageText = Type.String({
  minLength: 1,
  maxLength: MAX_TEXT_LENGTH,
  description: `1 to ${MAX_TEXT_LENGTH} characters (the tenant may configure fewer)`,
});

export const MessageMetadata = Type.Object(
  {},
  {
    maxProperties: 20,
    propertyNames: { pattern: '^[A-Za-z0-9_.:-]{1,40}$' },
    additionalProperties: Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()]),
    description: 'Up to 20 keys (<= 40 chars); values are strings (<= 256 chars), numbers or booleans',
  },
);

export const ClientId = Type.String({
  pattern: '^[A-Za-z0-9_.:-]{1,64}$',
  description: "The sender's own id for the message; sending again with it returns the first message",
});

/**
 * How an API key names the actor it speaks for: the spec's Actor object, as runtime connect takes it.
 * The actor is created when the tenant has none with that id yet.
 */
export const ActorInput = Actor;

export const ActorView = Type.Object({
  id: Type.String({ description: 'Internal actor id' }),
  type: Type.String(),
  externalId: Type.String({ description: '<provider>:<external_id>' }),
});

export const Reaction = Type.Object({ emoji: Type.String(), count: Type.Integer({ minimum: 1 }) });

export const Message = Type.Object({
  id: Type.String(),
  roomId: Type.String(),
  seq: Type.Integer({ minimum: 1, description: 'Position in the room: 1, 2, 3, ... in commit order' }),
  author: ActorView,
  text: Type.String({ description: 'Empty once deleted' }),
  metadata: Type.Object({}, { additionalProperties: true }),
  clientId: Type.Union([Type.String(), Type.Null()]),
  reactions: Type.Array(Reaction),
  revision: Type.Integer({ minimum: 0, description: 'Grows with every change; keep the highest you saw' }),
  createdAt: Type.String({ format: 'date-time' }),
  editedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  deletedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const MessagePage = Type.Object({
  data: Type.Array(Message, { description: 'Oldest first' }),
  hasMore: Type.Boolean({
    description: 'With `after`: newer messages exist past this page. Otherwise: older ones do.',
  }),
});

export const SendMessageInput = Type.Object(
  {
    roomId: RoomId,
    text: MessageText,
    metadata: Type.Optional(MessageMetadata),
    clientId: Type.Optional(ClientId),
    actor: Type.Optional(ActorInput),
  },
  { additionalProperties: false },
);

export const ListMessagesInput = Type.Object(
  {
    roomId: RoomId,
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Only messages with a lower seq' })),
    after: Type.Optional(Type.Integer({ minimum: 0, description: 'Only messages with a higher seq' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 50 })),
  },
  { additionalProperties: false },
);

export const MessageRef = Type.Object(
  { roomId: RoomId, messageId: MessageId },
  { additionalProperties: false },
);

export const EditMessageInput = Type.Object(
  {
    roomId: RoomId,
    messageId: MessageId,
    text: Type.Optional(MessageText),
    metadata: Type.Optional(MessageMetadata),
  },
  { additionalProperties: false, minProperties: 3 },
);

export const ReactionInput = Type.Object(
  { roomId: RoomId, messageId: MessageId, emoji: Emoji, actor: Type.Optional(ActorInput) },
  { additionalProperties: false },
);

export const ChatConfig = Type.Object(
  {
    maxLength: Type.Integer({
      minimum: 1,
      maximum: MAX_TEXT_LENGTH,
      default: MAX_TEXT_LENGTH,
      description: 'Longest message text, in characters',
    }),
    blockedWords: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 500,
      default: [],
      description: 'Messages containing one of these words (whole word, any case) are refused',
    }),
  },
  { additionalProperties: false },
);
