import { documentSchemas, isJsonObject, type JsonObject, subschemas } from './schema-walk.ts';

const COMPONENTS = '#/components/schemas/';
/** What OpenAPI allows as a component name. */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;
/**
 * Keywords that annotate a schema rather than constrain it: occurrences of one schema may differ in them
 * (a route describes the room it answers; the generator moves a response schema's examples to its media
 * object).
 */
const ANNOTATIONS = ['description', 'example', 'examples'];

interface Named {
  /** The first occurrence, its inner titled schemas already replaced by references. */
  schema: JsonObject;
  at: string;
  /** The schema without its annotations, keys sorted: every occurrence must agree on it. */
  shape: string;
  /** The examples of the first occurrence that has any. */
  examples: JsonObject;
  descriptions: Map<string, number>;
  references: JsonObject[];
}

/**
 * Every schema that carries a `title` becomes `components.schemas[<title>]`, and each place that held it a
 * `$ref` to it (titled schemas inside it too: a `RoomPage` refers to `Room`), so a generated client has a
 * named type per resource. An occurrence whose description differs from the component's keeps its own
 * beside the `$ref` (OpenAPI 3.1 allows it). Two different schemas under one title would make one of them
 * lie: that throws, naming both places.
 */
export function nameSchemas(document: JsonObject): void {
  const named = new Map<string, Named>();
  const hoist = (schema: JsonObject, at: string): JsonObject => {
    for (const inner of subschemas(schema, at)) inner.replace(hoist(inner.schema, inner.at));
    const title = schema.title;
    if (typeof title !== 'string' || '$ref' in schema) return schema;
    return referTo(named, title, schema, at);
  };

  const components = isJsonObject(document.components) ? document.components : {};
  document.components = components;
  // Components the generator declared (a schema's `$id`, `def-N`) first: one with its own title is renamed.
  const declared: JsonObject = {};
  for (const site of documentSchemas({ components: { schemas: components.schemas ?? {} } })) {
    const name = site.at.slice(COMPONENTS.length);
    const result = hoist(site.schema, site.at);
    if (result.$ref !== `${COMPONENTS}${name}`) declared[name] = result;
  }
  for (const site of documentSchemas({ ...document, components: {} })) {
    site.replace(hoist(site.schema, site.at));
  }
  const schemas: JsonObject = declared;
  for (const title of [...named.keys()].sort()) {
    schemas[title] = component(named.get(title) as Named);
  }
  components.schemas = schemas;
}

/** Records one occurrence of the schema named `title`, and answers the reference that takes its place. */
function referTo(named: Map<string, Named>, title: string, schema: JsonObject, at: string): JsonObject {
  if (!COMPONENT_NAME.test(title)) {
    throw new Error(`OpenAPI: the schema at ${at} is titled "${title}", which is not a component name`);
  }
  const shape = canonical(withoutAnnotations(schema));
  let entry = named.get(title);
  if (entry === undefined) {
    entry = { schema, at, shape, examples: {}, descriptions: new Map(), references: [] };
    named.set(title, entry);
  } else if (entry.shape !== shape) {
    throw new Error(
      `OpenAPI: two different schemas are titled ${title}: ${entry.at} and ${at} ` +
        `(first difference at ${firstDifference(entry.schema, schema) || '/'}); give one another title`,
    );
  }
  if (Object.keys(entry.examples).length === 0) {
    for (const key of ['example', 'examples']) if (key in schema) entry.examples[key] = schema[key];
  }
  const reference: JsonObject = { $ref: `${COMPONENTS}${title}` };
  if (typeof schema.description === 'string') {
    reference.description = schema.description;
    entry.descriptions.set(schema.description, (entry.descriptions.get(schema.description) ?? 0) + 1);
  }
  entry.references.push(reference);
  return reference;
}

/**
 * The component of a named schema: described as most of its occurrences describe it (the first of equals);
 * the references that say the same drop their copy.
 */
function component(entry: Named): JsonObject {
  let description: string | undefined;
  let uses = 0;
  for (const [candidate, count] of entry.descriptions) {
    if (count > uses) [description, uses] = [candidate, count];
  }
  for (const reference of entry.references) {
    if (reference.description === description) delete reference.description;
  }
  return {
    ...withoutAnnotations(entry.schema),
    ...(description === undefined ? {} : { description }),
    ...entry.examples,
  };
}

function withoutAnnotations(schema: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !ANNOTATIONS.includes(key)));
}

/** JSON with every object's keys sorted: equal for equal schemas whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isJsonObject(inner)
      ? Object.fromEntries(
          Object.keys(inner)
            .sort()
            .map((key) => [key, inner[key]]),
        )
      : inner,
  );
}

/** Where two clashing schemas first part (a JSON pointer under the schema), for the error message. */
function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
  if (canonical(a) === canonical(b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return at;
  const [left, right] = [a as JsonObject, b as JsonObject];
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    if (at === '' && ANNOTATIONS.includes(key)) continue;
    const inner = firstDifference(left[key], right[key], `${at}/${key}`);
    if (inner !== undefined) return inner;
  }
  return at;
}
