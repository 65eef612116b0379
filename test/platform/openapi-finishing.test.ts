import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spellHeaderNames } from '../../src/core/http/openapi/header-names.ts';
import { nameSchemas } from '../../src/core/http/openapi/named-schemas.ts';
import { describeResponses } from '../../src/core/http/openapi/response-descriptions.ts';
import type { JsonObject } from '../../src/core/http/openapi/schema-walk.ts';

const Room = {
  type: 'object',
  title: 'Room',
  description: 'A room',
  required: ['id'],
  properties: { id: { type: 'string' } },
};
const RoomPage = {
  type: 'object',
  title: 'RoomPage',
  description: 'A page of rooms',
  properties: { data: { type: 'array', items: Room }, nextCursor: { type: ['string', 'null'] } },
};

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** A document as @fastify/swagger writes it: every schema inline, copied wherever a route uses it. */
function generated(paths: JsonObject): JsonObject {
  return structuredClone({ openapi: '3.1.0', info: { title: 'svc API', version: '1' }, paths });
}

describe('finishing the generated OpenAPI document', () => {
  test('every titled schema becomes one component, referred to wherever it was, nested ones too', () => {
    const document = generated({
      '/v1/rooms': {
        get: { responses: { 200: { description: 'A page of rooms', ...json(RoomPage) } } },
        post: {
          requestBody: json({ type: 'object', properties: { name: { type: 'string' } } }),
          responses: { 201: { description: 'A room', ...json(Room) } },
        },
      },
    });
    nameSchemas(document);
    const components = (document.components as { schemas: JsonObject }).schemas;
    assert.deepEqual(Object.keys(components), ['Room', 'RoomPage']);
    assert.deepEqual(components.Room, Room);
    assert.deepEqual((components.RoomPage as typeof RoomPage).properties.data.items, {
      $ref: '#/components/schemas/Room',
    });
    const paths = document.paths as Record<string, Record<string, { responses: JsonObject }>>;
    assert.deepEqual(paths['/v1/rooms']?.post?.responses[201], {
      description: 'A room',
      ...json({ $ref: '#/components/schemas/Room' }),
    });
    assert.equal(JSON.stringify(document).match(/"title":"Room"/g)?.length, 1, 'Room is written once');
  });

  test('an occurrence with its own description keeps it beside the $ref; examples are not schemas', () => {
    const example = { title: 'Room', name: 'not a schema' };
    const document = generated({
      // The generator moves a response schema's examples to its media object: the same Room without them.
      '/a': { get: { responses: { 200: { description: 'a', ...json(Room) } } } },
      '/b': { get: { responses: { 200: { description: 'b', ...json({ ...Room, example }) } } } },
      '/c': {
        get: {
          responses: { 200: { description: 'c', ...json({ ...Room, example, description: 'Renamed' }) } },
        },
      },
    });
    nameSchemas(document);
    const text = JSON.stringify(document);
    assert.match(text, /"schema":\{"\$ref":"#\/components\/schemas\/Room","description":"Renamed"\}/);
    assert.equal(
      text.match(/"description":"A room"/g)?.length,
      1,
      'the common description, on the component',
    );
    const components = (document.components as { schemas: Record<string, JsonObject> }).schemas;
    assert.deepEqual(components.Room?.example, example, 'the component keeps the example');
    assert.equal(Object.keys(components).length, 1, 'the title inside the example names nothing');
  });

  test('two different schemas under one title stop the document, naming both places', () => {
    const document = generated({
      '/v1/rooms/{roomId}': {
        get: { responses: { 200: { description: 'A room', ...json(Room) } } },
        delete: {
          responses: { 200: { description: 'Gone', ...json({ ...Room, required: ['id', 'deleted'] }) } },
        },
      },
    });
    assert.throws(
      () => nameSchemas(document),
      (error: Error) =>
        error.message.includes('two different schemas are titled Room') &&
        error.message.includes(
          '#/paths/~1v1~1rooms~1{roomId}/get/responses/200/content/application~1json/schema',
        ) &&
        error.message.includes('/delete/responses/200/') &&
        error.message.includes('/required/1'),
    );
  });

  test('no response is left as "Default Response": schema description, else its title, else the summary', () => {
    const document = generated({
      '/a': {
        get: {
          summary: 'Get a',
          responses: {
            200: { description: 'Default Response', ...json({ ...Room, description: undefined }) },
            202: { description: 'Default Response', ...json({ type: 'object', description: 'Queued' }) },
            204: { description: 'Default Response' },
            409: { description: 'Said by the route' },
          },
        },
      },
    });
    describeResponses(document);
    const responses = (document.paths as Record<string, { get: { responses: JsonObject } }>)['/a']?.get
      .responses as Record<string, { description: string }>;
    assert.deepEqual(
      Object.values(responses).map((r) => r.description),
      ['`Room`: Get a', 'Queued', 'Get a', 'Said by the route'],
    );
  });

  test('header parameters are spelled as the docs spell them; an unknown one stops the document', () => {
    const document = generated({
      '/v1/payments': {
        post: {
          parameters: [
            { in: 'header', name: 'idempotency-key' },
            { in: 'query', name: 'limit' },
          ],
        },
      },
    });
    spellHeaderNames(document);
    assert.match(JSON.stringify(document), /"name":"Idempotency-Key".*"name":"limit"/);
    const unknown = generated({ '/x': { get: { parameters: [{ in: 'header', name: 'x-unheard-of' }] } } });
    assert.throws(() => spellHeaderNames(unknown), /\/x takes header x-unheard-of.*HEADER_NAMES/);
  });
});
