-- Chat events carried their message's author as {id: <internal uuid>, type, externalId}. The API names
-- actors only by the Actor object (issue 29): {type, id: '<provider>:<external_id>', identityProvider},
-- as events written from now on do (verbs/message-row.ts). Webhook deliveries and GET /v1/events read
-- these rows. An actor deleted since keeps its provider as the prefix of its id.
update events
   set data = jsonb_set(data, '{message,author}', jsonb_build_object(
         'type', data -> 'message' -> 'author' ->> 'type',
         'id', data -> 'message' -> 'author' ->> 'externalId',
         'identityProvider', coalesce(
           (select a.identity_provider from actors a
             where a.tenant_id = events.tenant_id and a.id::text = events.data -> 'message' -> 'author' ->> 'id'),
           split_part(data -> 'message' -> 'author' ->> 'externalId', ':', 1))))
 where type like 'chat.message.%' and data -> 'message' -> 'author' ? 'externalId';
