import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { ACTOR_EXTERNAL_ID } from '../../core/tenancy/actors.ts';
import { Emoji, Message, MessageId, RoomId } from './schema.ts';
import { addReaction } from './verbs/add-reaction.ts';
import { removeReaction } from './verbs/remove-reaction.ts';

const write = { module: 'chat', auth: { credentials: ['api_key', 'session'] as const, scope: 'chat:write' } };

const Params = Type.Object({ roomId: RoomId, messageId: MessageId, emoji: Emoji });
const Query = Type.Object(
  {
    actor: Type.Optional(
      Type.String({
        pattern: ACTOR_EXTERNAL_ID,
        description: 'API keys only: the actor (`<provider>:<external_id>`) whose reaction this is',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * A query string carries no object, so here the actor is named by its external id alone: the actor the
 * tenant has with that id, or (first use) an agent whose identity provider is the id's provider part.
 */
function reactionInput(params: Static<typeof Params>, query: Static<typeof Query>) {
  if (query.actor === undefined) return params;
  const identityProvider = query.actor.slice(0, query.actor.indexOf(':'));
  return { ...params, actor: { type: 'agent' as const, id: query.actor, identityProvider } };
}

export async function reactionRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/v1/rooms/:roomId/messages/:messageId/reactions/:emoji',
    {
      config: write,
      schema: {
        operationId: 'addReaction',
        summary: 'React to a message (once per actor and emoji; again changes nothing)',
        tags: ['chat'],
        params: Params,
        querystring: Query,
        response: { 200: Message, 409: errorRef('The message was deleted.') },
      },
    },
    async (request) =>
      addReaction(requestContext(request, services), reactionInput(request.params, request.query)),
  );

  typed.delete(
    '/v1/rooms/:roomId/messages/:messageId/reactions/:emoji',
    {
      config: write,
      schema: {
        operationId: 'removeReaction',
        summary: 'Take back a reaction',
        tags: ['chat'],
        params: Params,
        querystring: Query,
        response: { 200: Message },
      },
    },
    async (request) =>
      removeReaction(requestContext(request, services), reactionInput(request.params, request.query)),
  );
}
