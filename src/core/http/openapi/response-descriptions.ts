import { HTTP_METHODS, isJsonObject, type JsonObject } from './schema-walk.ts';

/** What @fastify/swagger writes when neither the route nor its response schema describes a response. */
const PLACEHOLDER = 'Default Response';

/**
 * Every response says what it is. A route may describe a response itself, and a response schema's own
 * `description` is used as is; those the generator left as "Default Response" are described here: a named
 * schema by its name and the operation (`Room`: Get a room), anything else by the operation's summary.
 * Runs before `nameSchemas`, while the response schemas are still inline.
 */
export function describeResponses(document: JsonObject): void {
  const paths = isJsonObject(document.paths) ? document.paths : {};
  for (const item of Object.values(paths)) {
    if (!isJsonObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isJsonObject(operation) || !isJsonObject(operation.responses)) continue;
      for (const response of Object.values(operation.responses)) {
        if (!isJsonObject(response) || response.description !== PLACEHOLDER) continue;
        response.description = describe(response, String(operation.summary ?? operation.operationId));
      }
    }
  }
}

function describe(response: JsonObject, summary: string): string {
  const content = isJsonObject(response.content) ? Object.values(response.content) : [];
  const schema = content.map((media) => (isJsonObject(media) ? media.schema : undefined)).find(isJsonObject);
  if (typeof schema?.description === 'string') return schema.description;
  if (typeof schema?.title === 'string') return `\`${schema.title}\`: ${summary}`;
  return summary;
}
