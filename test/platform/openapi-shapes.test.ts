import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { forEachSchema, isJsonObject, type JsonObject } from '../../src/core/http/openapi/schema-walk.ts';
import { servedDocument } from '../fixtures/openapi-client/served-document.ts';

/**
 * The API says one thing one way (issue 29): one Actor, one list shape. These walk the served document, so
 * a route added later in another shape fails here, whichever module it is in.
 */
const ACTOR = '#/components/schemas/Actor';

/** Properties that name the person an API key acts for: each holds the shared Actor (issue 29, item 1). */
const ACTOR_PROPERTIES = ['actor', 'author', 'bidder', 'customer', 'winner'];

/**
 * Properties named like a person that may name something else, by the schema that holds them (its
 * component): what they hold instead, said once here.
 */
const NOT_ONLY_PERSONS: Record<string, string> = {
  '#/components/schemas/EventTrace':
    'actor: who caused an event, an API key or a console user as well as an Actor',
};

/** The values a schema allows: `const`, `enum`, and those of its `anyOf`/`oneOf` branches. */
function literalsOf(schema: unknown): unknown[] {
  if (!isJsonObject(schema)) return [];
  return [
    ...('const' in schema ? [schema.const] : []),
    ...(Array.isArray(schema.enum) ? schema.enum : []),
    ...branchesOf(schema).flatMap(literalsOf),
  ];
}

const branchesOf = (schema: JsonObject): unknown[] =>
  [schema.anyOf, schema.oneOf].flatMap((list) => (Array.isArray(list) ? list : []));

/** The shared Actor, or the shared Actor or null. */
function isSharedActor(schema: unknown): boolean {
  if (!isJsonObject(schema)) return false;
  if (schema.$ref === ACTOR) return true;
  const branches = branchesOf(schema);
  return (
    branches.some((branch) => isJsonObject(branch) && branch.$ref === ACTOR) &&
    branches.every((branch) => isJsonObject(branch) && (branch.$ref === ACTOR || branch.type === 'null'))
  );
}

/**
 * Why `schema` names an actor in a shape of its own, or undefined when it does not: an actor's fields, an
 * actor's title (every titled schema is a component, so an `ActorView` is found where it is defined), or a
 * property named for a person that holds something other than the shared Actor.
 */
function actorLike(schema: JsonObject, at = ''): string | undefined {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const title = typeof schema.title === 'string' ? schema.title : '';
  if ('externalId' in properties) return 'has externalId';
  if ('id' in properties && literalsOf(properties.type).includes('end_user')) {
    return 'has id and type end_user';
  }
  if (/Actor/.test(title)) return `titled ${title}`;
  if (at in NOT_ONLY_PERSONS) return undefined;
  const misnamed = ACTOR_PROPERTIES.filter((name) => {
    const property = properties[name];
    return isJsonObject(property) && !isSharedActor(property) && actorLike(property) === undefined;
  });
  if (misnamed.length > 0) return `property ${misnamed.join(', ')} is not ${ACTOR}`;
  return undefined;
}

interface Parameter {
  in: string;
  name: string;
  schema?: { default?: unknown; maximum?: unknown };
}

/** The schema a `$ref` names in this document, or the schema itself. */
function resolve(document: JsonObject, schema: unknown): JsonObject | undefined {
  if (!isJsonObject(schema)) return undefined;
  if (typeof schema.$ref !== 'string') return schema;
  const components = (document.components as { schemas?: JsonObject } | undefined)?.schemas ?? {};
  const target = components[schema.$ref.replace('#/components/schemas/', '')];
  return isJsonObject(target) ? target : undefined;
}

/**
 * What a GET answering a list lacks of the one list shape: limit (with its default and maximum), cursor,
 * nextCursor.
 */
function pagingGaps(parameters: Parameter[], answer: JsonObject): string[] {
  const query = new Map(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p]));
  const limit = query.get('limit');
  return [
    ...(limit === undefined ? ['no limit parameter'] : []),
    ...(limit !== undefined && (limit.schema?.default === undefined || limit.schema.maximum === undefined)
      ? ['limit without a default and a maximum']
      : []),
    ...(query.has('cursor') ? [] : ['no cursor parameter']),
    ...(isJsonObject(answer.properties) && 'nextCursor' in answer.properties ? [] : ['no nextCursor']),
  ];
}

describe('one shape for an actor and for a list, across every module', () => {
  let doc: JsonObject;
  before(async () => {
    doc = await servedDocument<JsonObject>();
  });

  test('every actor in the document is the shared #/components/schemas/Actor', () => {
    const components = (doc.components as { schemas?: JsonObject }).schemas ?? {};
    assert.ok(isJsonObject(components.Actor), 'the shared Actor is a named component');
    const offenders: string[] = [];
    forEachSchema(doc, (schema, at) => {
      if (at === ACTOR) return;
      const why = actorLike(schema, at);
      if (why !== undefined) offenders.push(`${at}: ${why}`);
    });
    assert.ok(
      offenders.length === 0,
      `${offenders.length} actor shapes besides ${ACTOR}:\n${offenders.join('\n')}`,
    );
  });

  test('every GET that answers a list takes limit and cursor and answers nextCursor', () => {
    const offenders: string[] = [];
    let lists = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, JsonObject>)) {
      const get = item.get;
      if (!isJsonObject(get)) continue;
      const ok = (get.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)[200];
      const answer = resolve(doc, ok?.content?.['application/json']?.schema);
      if (answer === undefined) continue;
      const data = isJsonObject(answer.properties) ? resolve(doc, answer.properties.data) : undefined;
      if (answer.type !== 'array' && data?.type !== 'array') continue;
      lists++;
      const gaps = pagingGaps((get.parameters ?? []) as Parameter[], answer);
      if (gaps.length > 0) offenders.push(`GET ${path}: ${gaps.join(', ')}`);
    }
    assert.ok(lists >= 20, `the walk finds the lists (${lists})`);
    assert.ok(
      offenders.length === 0,
      `${offenders.length} of ${lists} lists not paged as {data, nextCursor}:\n${offenders.join('\n')}`,
    );
  });

  test('the walks see what they look for', () => {
    const actorCopy = {
      type: 'object',
      properties: { id: { type: 'string' }, type: { anyOf: [{ const: 'end_user' }, { const: 'agent' }] } },
    };
    assert.equal(actorLike(actorCopy), 'has id and type end_user');
    assert.equal(actorLike({ properties: { externalId: {} } }), 'has externalId');
    assert.equal(actorLike({ title: 'ActorView' }), 'titled ActorView');
    assert.equal(actorLike({ properties: { id: {}, type: { enum: ['api_key', 'session'] } } }), undefined);
    assert.equal(
      actorLike({ properties: { customer: { type: 'string' } } }),
      `property customer is not ${ACTOR}`,
    );
    const winner = { anyOf: [{ $ref: ACTOR }, { type: 'null' }] };
    assert.equal(actorLike({ properties: { winner, author: { $ref: ACTOR } } }), undefined);
    assert.deepEqual(pagingGaps([{ in: 'query', name: 'limit', schema: { maximum: 100 } }], {}), [
      'limit without a default and a maximum',
      'no cursor parameter',
      'no nextCursor',
    ]);
  });
});
