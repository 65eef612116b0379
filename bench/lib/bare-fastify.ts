// The second baseline of bench:http and bench:auth: Fastify itself, the version the service runs, with no
// plugin, hook or logger, answering the same JSON the way the service does (an async handler whose object
// is serialized by fast-json-stringify from a response schema). The service's figures against this one are
// what its own code costs; this one's against node:http is what Fastify costs.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { RequestSpec } from './load.ts';
import type { Target } from './targets.ts';

type JsonSchema = Record<string, unknown>;

/** A response schema describing `value` exactly, so the serializer does the work the service's does. */
export function schemaOf(value: unknown): JsonSchema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value.length > 0 ? schemaOf(value[0]) : {} };
  switch (typeof value) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      const entries = Object.entries(value as object);
      return {
        type: 'object',
        properties: Object.fromEntries(entries.map(([key, field]) => [key, schemaOf(field)])),
        required: entries.map(([key]) => key),
      };
    }
    default:
      throw new Error(`not JSON: ${typeof value}`);
  }
}

/** Bare Fastify on a random loopback port, answering `request` with `body` (status 200). */
export async function startBareFastify(
  request: RequestSpec,
  body: unknown,
  name = 'bare Fastify',
): Promise<Target> {
  const app = Fastify({ logger: false });
  app.route({
    method: request.method ?? 'GET',
    url: request.path,
    schema: { response: { 200: schemaOf(body) } },
    handler: async () => body,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    name,
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
