import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/context.ts';
import { requestContext } from '../../core/http/context.ts';
import { AppError } from '../../core/http/errors.ts';
import { errorRef } from '../../core/http/schemas.ts';
import { assertRoomExists } from '../rooms/port.ts';
import { Applied, BinaryQuery, DocQuery, DocumentJson, RoomParams } from './schema.ts';
import { applyDocumentUpdate } from './verbs/apply-document-update.ts';
import { getDocument } from './verbs/get-document.ts';
import { getDocumentUpdate } from './verbs/get-document-update.ts';

const sessionsToo = ['api_key', 'session'] as const;
const read = { module: 'sync', auth: { credentials: sessionsToo, scope: 'sync:read' } };
const write = { module: 'sync', auth: { credentials: sessionsToo, scope: 'sync:write' } };
/** A PUT body: room for the largest document a tenant may configure is not needed, one update is. */
const MAX_UPDATE_BYTES = 16 * 1024 * 1024;
const OCTETS = 'application/octet-stream';
/** A PUT body as the OpenAPI document shows it. */
const UpdateBody = {
  type: 'string',
  format: 'binary',
  description:
    'A Yjs update (version 1 encoding): `Y.encodeStateAsUpdate(doc)`, or the bytes of a document’s `update` event',
} as const;
const acceptAnyBody = () => true;

/** The REST side of sync: the document as JSON, as a Yjs update, and writes of updates. */
export async function syncRestRoutes(app: FastifyInstance, services: Services) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/v1/rooms/:roomId/ydoc',
    {
      config: read,
      schema: {
        operationId: 'getSyncDocument',
        summary: "A room's shared Yjs document as JSON (each root type by name)",
        tags: ['sync'],
        params: RoomParams,
        querystring: DocQuery,
        response: { 200: DocumentJson },
      },
    },
    async (request) =>
      getDocument(requestContext(request, services), { ...request.params, ...request.query }),
  );

  typed.get(
    '/v1/rooms/:roomId/ydoc-binary',
    {
      config: read,
      schema: {
        operationId: 'getSyncDocumentUpdate',
        summary: "A room's shared document as one Yjs update, or what a state vector lacks",
        description:
          'The body is binary (`application/octet-stream`): pass it to `Y.applyUpdate`. With `stateVector` ' +
          '(`Y.encodeStateVector(doc)`, base64) only the missing part is returned.',
        tags: ['sync'],
        params: RoomParams,
        querystring: BinaryQuery,
        response: {
          200: {
            description: 'The Yjs update (version 1 encoding)',
            // Bytes, as the type provider must see them too (a Buffer is sent, not a string).
            content: { [OCTETS]: { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
          },
          400: errorRef('`stateVector` is not a Yjs state vector'),
        },
      },
    },
    async (request, reply) => {
      const update = await getDocumentUpdate(requestContext(request, services), {
        ...request.params,
        ...request.query,
      });
      return reply.type(OCTETS).send(Buffer.from(update.buffer, update.byteOffset, update.byteLength));
    },
  );

  // The body is bytes: parsed as a Buffer and checked by the verb (a malformed update is a 422).
  await app.register(async (binary) => {
    binary.addContentTypeParser(
      OCTETS,
      { parseAs: 'buffer', bodyLimit: MAX_UPDATE_BYTES },
      (_request, body, done) => done(null, body),
    );
    binary.withTypeProvider<TypeBoxTypeProvider>().put(
      '/v1/rooms/:roomId/ydoc-binary',
      {
        config: write,
        bodyLimit: MAX_UPDATE_BYTES,
        // The body schema is there for the OpenAPI document (binary); the bytes are the verb's to check
        // (a malformed update is a 422, not a schema error). Path and query are validated as usual.
        validatorCompiler: (request) => {
          if (request.httpPart === 'body') return acceptAnyBody;
          const compile = binary.validatorCompiler;
          if (compile === undefined) throw new Error('the app has no validator compiler');
          return compile(request);
        },
        schema: {
          operationId: 'applySyncDocumentUpdate',
          summary: "Apply a Yjs update to a room's shared document; live clients receive it",
          description:
            'The body is a Yjs update (`Y.encodeStateAsUpdate`, or a document’s `update` event), sent as ' +
            '`application/octet-stream`. It is stored before the answer, then relayed to every connected ' +
            'client on every instance. A body that is not a Yjs update answers 422 and changes nothing.',
          tags: ['sync'],
          params: RoomParams,
          querystring: DocQuery,
          consumes: [OCTETS],
          body: UpdateBody,
          response: {
            200: Applied,
            413: errorRef(
              'The update would grow the document past `maxDocumentBytes`, or the body is over 16 MiB',
            ),
            415: errorRef('The body is not `application/octet-stream`'),
            422: errorRef('The body is not a Yjs update (`details[0].code` `malformed_update`)'),
          },
        },
      },
      async (request) => {
        const body: unknown = request.body;
        if (!(body instanceof Buffer)) {
          // A room of another tenant is a 404 whatever the body.
          await assertRoomExists(requestContext(request, services), request.params.roomId);
          throw new AppError(
            'unsupported_media_type',
            'send the Yjs update as the raw body with Content-Type: application/octet-stream',
          );
        }
        const update = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
        return applyDocumentUpdate(requestContext(request, services), {
          ...request.params,
          ...request.query,
          update,
        });
      },
    );
  });
}
