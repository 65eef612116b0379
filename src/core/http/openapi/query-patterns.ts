import type { RouteOptions } from 'fastify';

/**
 * Query parameters named by a pattern (`metadata.<key>`) are in the querystring schema as
 * `patternProperties`, which the generator drops: they are added to the document as one exploded form
 * object, the OpenAPI 3.1 way to say "any parameter whose name matches".
 */
export type QueryPatterns = Map<string, { name: string; patternProperties: unknown; description?: string }>;

export function recordQueryPatterns(route: RouteOptions, queryPatterns: QueryPatterns): void {
  const query = route.schema?.querystring as
    | { patternProperties?: unknown; description?: string }
    | undefined;
  if (query?.patternProperties === undefined) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = route.url.replace(/:(\w+)/g, '{$1}');
  for (const method of methods) {
    queryPatterns.set(`${method.toLowerCase()} ${path}`, {
      name: 'filters',
      patternProperties: query.patternProperties,
      ...(query.description === undefined ? {} : { description: query.description }),
    });
  }
}

type OpenApiPaths = { paths?: Record<string, Record<string, { parameters?: unknown[] }>> };

export function addQueryPatterns(document: OpenApiPaths, queryPatterns: QueryPatterns): void {
  const paths = document.paths ?? {};
  for (const [key, pattern] of queryPatterns) {
    const [method = '', path = ''] = key.split(' ');
    const operation = paths[path]?.[method];
    if (operation === undefined) continue;
    const parameters = operation.parameters ?? [];
    if (parameters.some((p) => (p as { name?: string }).name === pattern.name)) continue;
    operation.parameters = [
      ...parameters,
      {
        name: pattern.name,
        in: 'query',
        style: 'form',
        explode: true,
        required: false,
        ...(pattern.description === undefined ? {} : { description: pattern.description }),
        schema: { type: 'object', patternProperties: pattern.patternProperties, additionalProperties: false },
      },
    ];
  }
}
