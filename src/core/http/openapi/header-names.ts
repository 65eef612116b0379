import { HTTP_METHODS, isJsonObject, type JsonObject } from './schema-walk.ts';

/**
 * Every header the API takes, spelled as the docs spell it. Fastify lowercases the keys of a route's
 * `headers` schema, so the generated document says `idempotency-key`, which a client typed from the
 * document would then have to write; header names are case-insensitive on the wire, so the document uses
 * these. A header parameter missing here stops the document (add its spelling), so the list stays whole.
 */
const HEADER_NAMES = [
  'Idempotency-Key',
  'X-Request-Id',
  'X-SVC-Product-Key',
  'X-API-Key',
  'X-SVC-Signature',
  'Stripe-Signature',
];

const BY_LOWER_CASE = new Map(HEADER_NAMES.map((name) => [name.toLowerCase(), name]));

export function spellHeaderNames(document: JsonObject): void {
  const paths = isJsonObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isJsonObject(item)) continue;
    const operations = HTTP_METHODS.map((method) => item[method]).filter(isJsonObject);
    for (const holder of [item, ...operations]) {
      const parameters = Array.isArray(holder.parameters) ? holder.parameters : [];
      for (const parameter of parameters) {
        if (!isJsonObject(parameter) || parameter.in !== 'header') continue;
        const name = BY_LOWER_CASE.get(String(parameter.name).toLowerCase());
        if (name === undefined) {
          throw new Error(
            `OpenAPI: ${path} takes header ${String(parameter.name)}, which header-names.ts does not ` +
              'spell; add it to HEADER_NAMES as the docs write it',
          );
        }
        parameter.name = name;
      }
    }
  }
}
