import { Type } from 'typebox';
import { ROOM_ID_PATTERN } from '../../core/auth/room-id.ts';
import { closedInput, dateTime, resource } from '../../core/http/named-schemas.ts';
import { PAGE_QUERY, Page } from '../../core/http/pagination.ts';
import { Actor } from '../../core/tenancy/actors.ts';
import { idPattern } from './ids.ts';

/** The hard ceiling; a tenant may configure a lower one. */
export const MAX_TEXT_LENGTH = 4000;

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

export const Reaction = resource('Reaction', 'One emoji on a message and how many actors reacted with it', {
  emoji: Type.String(),
  count: Type.Integer({ minimum: 1 }),
});

export const Message = resource(
  'ChatMessage',
  'A message of a room, numbered by `seq`; a deleted one is a tombstone (empty text)',
  {
    id: Type.String(),
    roomId: Type.String(),
    seq: Type.Integer({ minimum: 1, description: 'Position in the room: 1, 2, 3, ... in commit order' }),
    author: Actor,
    text: Type.String({ description: 'Empty once deleted' }),
    metadata: Type.Object({}, { additionalProperties: true }),
    clientId: Type.Union([Type.String(), Type.Null()]),
    reactions: Type.Array(Reaction),
    revision: Type.Integer({ minimum: 0, description: 'Grows with every change; keep the highest you saw' }),
    createdAt: dateTime(),
    editedAt: Type.Union([dateTime(), Type.Null()]),
    deletedAt: Type.Union([dateTime(), Type.Null()]),
  },
);

export const MessagePage = Page(
  Message,
  'ChatMessagePage',
  'A page of a room’s messages, oldest first within the page: the newest page first, older ones by `cursor`; with `after`, the messages past it',
);

export const SendMessageInput = closedInput(
  'SendMessageActionInput',
  'A message to post to a room; with an API key, `actor` names who it is from',
  {
    roomId: RoomId,
    text: MessageText,
    metadata: Type.Optional(MessageMetadata),
    clientId: Type.Optional(ClientId),
    actor: Type.Optional(ActorInput),
  },
);

export const ListMessagesInput = closedInput(
  'ListMessagesActionInput',
  'Which messages of a room to page through',
  {
    roomId: RoomId,
    ...PAGE_QUERY,
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Only messages with a lower seq' })),
    after: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Only messages with a higher seq, read forward' }),
    ),
  },
);

export const MessageRef = closedInput('ChatMessageRef', 'One message of a room', {
  roomId: RoomId,
  messageId: MessageId,
});

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

export const ChatConfig = closedInput(
  'ChatConfig',
  'A tenant’s chat settings: the longest text, and the words it refuses',
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
);
