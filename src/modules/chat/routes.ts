import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { PAGE_QUERY } from '../../core/http/pagination.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { reactionRoutes } from './reaction-routes.ts';
import {
  ActorInput,
  ClientId,
  Message,
  MessageId,
  MessageMetadata,
  MessagePage,
  MessageText,
  RoomId,
} from './schema.ts';
import { deleteMessage } from './verbs/delete-message.ts';
import { editMessage } from './verbs/edit-message.ts';
import { listMessages } from './verbs/list-messages.ts';
import { sendMessage } from './verbs/send-message.ts';

const credentials = ['api_key', 'session'] as const;
const read = { module: 'chat', auth: { credentials, scope: 'chat:read' } };
const write = { module: 'chat', auth: { credentials, scope: 'chat:write' } };

const RoomParams = Type.Object({ roomId: RoomId });
const MessageParams = Type.Object({ roomId: RoomId, messageId: MessageId });

const SendBody = Type.Object(
  {
    text: MessageText,
    metadata: Type.Optional(MessageMetadata),
    clientId: Type.Optional(ClientId),
    // API keys only: who the message is from.
    actor: Type.Optional(ActorInput),
  },
  {
    title: 'SendMessageInput',
    description:
      'A message to post; with an API key, `actor` names who it is from (a session token acts as itself)',
    additionalProperties: false,
  },
);

const ListQuery = Type.Object(
  {
    ...PAGE_QUERY,
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Older than this seq' })),
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Newer than this seq: read forward (then `cursor` goes on forward)',
      }),
    ),
  },
  { additionalProperties: false },
);

const EditBody = Type.Object(
  { text: Type.Optional(MessageText), metadata: Type.Optional(MessageMetadata) },
  {
    title: 'EditMessageInput',
    description: 'A message’s new text and/or metadata',
    additionalProperties: false,
    minProperties: 1,
  },
);

export async function chatRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/rooms/:roomId/messages',
    {
      config: write,
      schema: {
        operationId: 'sendMessage',
        summary: 'Send a message to a room (a session token as its actor; an API key names the actor)',
        tags: ['chat'],
        params: RoomParams,
        body: SendBody,
        response: { 201: Message },
      },
    },
    async (request, reply) => {
      const message = await sendMessage(requestContext(request, services), {
        ...request.body,
        ...request.params,
      });
      reply.status(201);
      return message;
    },
  );

  typed.get(
    '/v1/rooms/:roomId/messages',
    {
      config: read,
      schema: {
        operationId: 'listMessages',
        summary:
          'Page through a room’s messages by seq: the newest page first, older ones by `cursor`; forward with `after`',
        tags: ['chat'],
        params: RoomParams,
        querystring: ListQuery,
        response: { 200: MessagePage },
      },
    },
    async (request) =>
      listMessages(requestContext(request, services), {
        ...request.query,
        ...request.params,
      }),
  );

  typed.patch(
    '/v1/rooms/:roomId/messages/:messageId',
    {
      config: write,
      schema: {
        operationId: 'editMessage',
        summary: 'Edit a message’s text or metadata (its author, or an API key)',
        tags: ['chat'],
        params: MessageParams,
        body: EditBody,
        response: { 200: Message, 409: errorRef('The message was deleted.') },
      },
    },
    async (request) =>
      editMessage(requestContext(request, services), {
        ...request.body,
        ...request.params,
      }),
  );

  typed.delete(
    '/v1/rooms/:roomId/messages/:messageId',
    {
      config: write,
      schema: {
        operationId: 'deleteMessage',
        summary: 'Delete a message, leaving a tombstone (its author, or an API key)',
        tags: ['chat'],
        params: MessageParams,
        response: { 200: Message },
      },
    },
    async (request) => deleteMessage(requestContext(request, services), request.params),
  );

  await reactionRoutes(app, services);
}
