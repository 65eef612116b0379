/**
 * Where the schemas of an OpenAPI 3.1 document are: the places an operation holds one (parameters,
 * request bodies, responses and their headers, callbacks), `components.schemas`, and the JSON Schema
 * keywords that hold subschemas. Example values (`example`, `default`, `const`) are data, never walked:
 * a room titled "x" in an example is not a schema titled "x".
 */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One schema of the document: its JSON pointer, and how to put another schema in its place. */
export interface SchemaSite {
  at: string;
  schema: JsonObject;
  replace(next: JsonObject): void;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Subschema keywords of JSON Schema 2020-12, by the shape that holds them. */
const ONE_SCHEMA = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

export function pointer(at: string, key: string | number): string {
  return `${at}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function siteOf(holder: JsonObject, key: string, at: string): SchemaSite[] {
  const schema = holder[key];
  if (!isJsonObject(schema)) return [];
  return [{ at: pointer(at, key), schema, replace: (next) => (holder[key] = next) }];
}

function sitesOfEach(holder: unknown, at: string, key: string): SchemaSite[] {
  if (!isJsonObject(holder)) return [];
  return Object.keys(holder).flatMap((name) => {
    const item = holder[name];
    return isJsonObject(item) ? siteOf(item, key, pointer(at, name)) : [];
  });
}

/** The schemas directly inside `schema` (its properties, items, branches...). */
export function subschemas(schema: JsonObject, at: string): SchemaSite[] {
  const sites = ONE_SCHEMA.flatMap((key) => siteOf(schema, key, at));
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (isJsonObject(item)) {
        sites.push({ at: pointer(pointer(at, key), i), schema: item, replace: (next) => (list[i] = next) });
      }
    });
  }
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isJsonObject(map))
      sites.push(...Object.keys(map).flatMap((name) => siteOf(map, name, pointer(at, key))));
  }
  return sites;
}

/** `content: {<media type>: {schema}}` of a parameter, request body, response or header. */
const contentSchemas = (holder: JsonObject, at: string) =>
  sitesOfEach(holder.content, pointer(at, 'content'), 'schema');

function parameterSchemas(parameters: unknown, at: string): SchemaSite[] {
  if (!Array.isArray(parameters)) return [];
  return parameters.flatMap((parameter, i) =>
    isJsonObject(parameter)
      ? [...siteOf(parameter, 'schema', pointer(at, i)), ...contentSchemas(parameter, pointer(at, i))]
      : [],
  );
}

function responseSchemas(response: JsonObject, at: string): SchemaSite[] {
  const sites = contentSchemas(response, at);
  const headers = response.headers;
  if (isJsonObject(headers)) {
    for (const name of Object.keys(headers)) {
      const header = headers[name];
      if (!isJsonObject(header)) continue;
      const headerAt = pointer(pointer(at, 'headers'), name);
      sites.push(...siteOf(header, 'schema', headerAt), ...contentSchemas(header, headerAt));
    }
  }
  return sites;
}

function operationSchemas(operation: JsonObject, at: string): SchemaSite[] {
  const sites = parameterSchemas(operation.parameters, pointer(at, 'parameters'));
  if (isJsonObject(operation.requestBody)) {
    sites.push(...contentSchemas(operation.requestBody, pointer(at, 'requestBody')));
  }
  const responses = operation.responses;
  if (isJsonObject(responses)) {
    for (const status of Object.keys(responses)) {
      const response = responses[status];
      if (isJsonObject(response))
        sites.push(...responseSchemas(response, pointer(pointer(at, 'responses'), status)));
    }
  }
  const callbacks = operation.callbacks;
  if (isJsonObject(callbacks)) {
    for (const name of Object.keys(callbacks)) {
      sites.push(...pathItemsSchemas(callbacks[name], pointer(pointer(at, 'callbacks'), name)));
    }
  }
  return sites;
}

function pathItemsSchemas(pathItems: unknown, at: string): SchemaSite[] {
  if (!isJsonObject(pathItems)) return [];
  return Object.keys(pathItems).flatMap((path) => {
    const item = pathItems[path];
    if (!isJsonObject(item)) return [];
    const itemAt = pointer(at, path);
    return [
      ...parameterSchemas(item.parameters, pointer(itemAt, 'parameters')),
      ...HTTP_METHODS.flatMap((method) => {
        const operation = item[method];
        return isJsonObject(operation) ? operationSchemas(operation, pointer(itemAt, method)) : [];
      }),
    ];
  });
}

/** The outermost schemas of the document: those an operation holds directly, and `components.schemas`. */
export function documentSchemas(document: JsonObject): SchemaSite[] {
  const sites = [
    ...pathItemsSchemas(document.paths, '#/paths'),
    ...pathItemsSchemas(document.webhooks, '#/webhooks'),
  ];
  const components = document.components;
  if (isJsonObject(components) && isJsonObject(components.schemas)) {
    const schemas = components.schemas;
    sites.push(...Object.keys(schemas).flatMap((name) => siteOf(schemas, name, '#/components/schemas')));
  }
  return sites;
}

/** Every schema of the document, each outer schema before the ones inside it. */
export function forEachSchema(document: JsonObject, visit: (schema: JsonObject, at: string) => void): void {
  const walk = (site: SchemaSite) => {
    visit(site.schema, site.at);
    for (const inner of subschemas(site.schema, site.at)) walk(inner);
  };
  for (const site of documentSchemas(document)) walk(site);
}
