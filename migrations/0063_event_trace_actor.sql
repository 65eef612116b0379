-- An event's trace named a runtime actor by its internal row id: {kind: 'actor', id: <uuid>, type,
-- externalId}. The API names actors only by the Actor object (issue 29): {kind: 'actor', type,
-- id: '<provider>:<external_id>', identityProvider}, as traces written from now on do (core/context.ts).
-- An actor deleted since keeps its provider as the prefix of its id.
update events
   set trace = jsonb_set(trace, '{actor}', jsonb_build_object(
         'kind', 'actor',
         'type', trace -> 'actor' ->> 'type',
         'id', trace -> 'actor' ->> 'externalId',
         'identityProvider', coalesce(
           (select a.identity_provider from actors a
             where a.tenant_id = events.tenant_id and a.id::text = events.trace -> 'actor' ->> 'id'),
           split_part(trace -> 'actor' ->> 'externalId', ':', 1))))
 where trace -> 'actor' ->> 'kind' = 'actor' and trace -> 'actor' ? 'externalId';
