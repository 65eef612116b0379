import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { servedDocument } from '../fixtures/openapi-client/served-document.ts';

/**
 * What a client generated from the served document must let its user write: a named type per resource
 * and request body, the idempotency header as the docs spell it, and a list page's `nextCursor`. A schema
 * left inline (no title), or a header spelled `idempotency-key`, fails to compile here.
 */
const USAGE = `
import type { components, paths } from './schema.ts';

type Schemas = components['schemas'];

export const roomName = (room: Schemas['Room']): string | null => room.name;
export const auctionStatus = (auction: Schemas['Auction']): string => auction.status;
export const paymentAmount = (payment: Schemas['Payment']): number => payment.amount;
export const actorId = (actor: Schemas['Actor']): string => actor.id;
export const messageAuthor = (message: Schemas['ChatMessage']): Schemas['Actor'] => message.author;

type CreateRoomBody = NonNullable<paths['/v1/rooms']['post']['requestBody']>['content']['application/json'];
export const lobby: Schemas['CreateRoomInput'] = { name: 'Lobby' };
export const sameBody = (body: Schemas['CreateRoomInput']): CreateRoomBody => body;

type CreatePaymentHeaders = NonNullable<paths['/v1/payments']['post']['parameters']['header']>;
export const idempotencyKey: CreatePaymentHeaders['Idempotency-Key'] = 'a-uuid-of-yours';

type RoomPage = paths['/v1/rooms']['get']['responses'][200]['content']['application/json'];
export const nextCursor = (page: RoomPage): string | null => page.nextCursor;
export const firstRoom = (page: RoomPage): Schemas['Room'] | undefined => page.data[0];
export const namedPage = (page: RoomPage): Schemas['RoomPage'] => page;
`;

type Content = Record<string, { schema?: { $ref?: string; type?: unknown } }>;

interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Content };
  responses?: Record<string, { description?: string; content?: Content }>;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/** Each request body and success answer of the document, with where it is. */
function bodies(document: Document): { where: string; content?: Content; description?: string }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) => {
      const where = `${method.toUpperCase()} ${path}`;
      return [
        ...(operation.requestBody === undefined
          ? []
          : [{ where: `${where} request body`, content: operation.requestBody.content }]),
        ...Object.entries(operation.responses ?? {})
          .filter(([status]) => status.startsWith('2'))
          .map(([status, response]) => ({ where: `${where} ${status}`, ...response })),
      ];
    }),
  );
}

/** openapi-typescript's types for `document`, and what the TypeScript compiler says of USAGE against them. */
async function compileUsage(document: unknown): Promise<string[]> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-openapi-client-'));
  try {
    const types = astToString(await openapiTS(JSON.stringify(document)));
    await fs.writeFile(path.join(folder, 'schema.ts'), types);
    await fs.writeFile(path.join(folder, 'usage.ts'), USAGE);
    const program = ts.createProgram([path.join(folder, 'usage.ts')], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 300));
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

describe('a client generated from the OpenAPI document', () => {
  let doc: Document;
  before(async () => {
    doc = await servedDocument<Document>();
  });

  test('names every resource, spells Idempotency-Key as the docs do and types a page', async () => {
    assert.deepEqual(await compileUsage(doc), []);
  });

  test('every request body and success answer is a named component, and says what it is', () => {
    const unnamed = bodies(doc)
      .filter(({ content }) => {
        const schema = content?.['application/json']?.schema;
        return schema !== undefined && schema.$ref === undefined && schema.type === 'object';
      })
      .map(({ where }) => where);
    const generic = bodies(doc)
      .filter(({ description }) => description === 'Default Response')
      .map(({ where }) => where);
    assert.ok(generic.length === 0, `described as "Default Response":\n${generic.join('\n')}`);
    assert.ok(
      unnamed.length === 0,
      `${unnamed.length} bodies without a title (inline in the document, nameless in a client):\n${unnamed.join('\n')}`,
    );
  });

  test('fails to compile when a resource is not named, or a header is spelled in lower case', async () => {
    const unnamed = structuredClone(doc);
    delete unnamed.components.schemas.Room;
    // A $ref to a missing component would not even generate: drop the references, as an untitled schema
    // has none.
    const inline = JSON.parse(
      JSON.stringify(unnamed).replaceAll('"$ref":"#/components/schemas/Room"', '"type":"object"'),
    );
    const roomErrors = await compileUsage(inline);
    assert.ok(
      roomErrors.some((message) => message.includes("'Room'")),
      roomErrors.join('\n'),
    );

    const lowerCase = structuredClone(doc);
    for (const parameter of lowerCase.paths['/v1/payments']?.post?.parameters ?? []) {
      if (parameter.in === 'header') parameter.name = parameter.name.toLowerCase();
    }
    const headerErrors = await compileUsage(lowerCase);
    assert.ok(
      headerErrors.some((message) => message.includes("'Idempotency-Key'")),
      headerErrors.join('\n'),
    );
  });
});
