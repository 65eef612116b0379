import { documentSchemas, isJsonObject, type JsonObject, subschemas } from './schema-walk.ts';

const COMPONENTS = '#/components/schemas/';
/** What OpenAPI allows as a component name. */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

interface Named {
  /** The first occurrence, its inner titled schemas already replaced by references. */
  schema: JsonObject;
  at: string;
  /** The schema without its description, keys sorted: two occurrences must agree on it. */
  shape: string;
  references: JsonObject[];
  descriptions: Map<string, number>;
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
  const components = isJsonObject(document.components) ? document.components : {};
  document.components = components;
  const declared = isJsonObject(components.schemas) ? components.schemas : {};

  const hoist = (schema: JsonObject, at: string): JsonObject => {
    for (const inner of subschemas(schema, at)) inner.replace(hoist(inner.schema, inner.at));
    const title = schema.title;
    if (typeof title !== 'string' || '$ref' in schema) return schema;
    if (!COMPONENT_NAME.test(title)) {
      throw new Error(`OpenAPI: the schema at ${at} is titled "${title}", which is not a component name`);
    }
    const { description, ...body } = schema;
    const shape = canonical(body);
    let entry = named.get(title);
    if (entry === undefined) {
      entry = { schema, at, shape, references: [], descriptions: new Map() };
      named.set(title, entry);
    } else if (entry.shape !== shape) {
      throw new Error(
        `OpenAPI: two different schemas are titled ${title}: ${entry.at} and ${at} ` +
          `(first difference at ${firstDifference(entry.schema, schema) || '/'}); give one another title`,
      );
    }
    const reference: JsonObject = { $ref: `${COMPONENTS}${title}` };
    if (typeof description === 'string') {
      reference.description = description;
      entry.descriptions.set(description, (entry.descriptions.get(description) ?? 0) + 1);
    }
    entry.references.push(reference);
    return reference;
  };

  // Components declared before (an `$id`, a `def-N`) first: those with their own title become the named one.
  const kept: JsonObject = {};
  for (const site of documentSchemas({ components: { schemas: declared } })) {
    const name = site.at.slice(COMPONENTS.length);
    const result = hoist(site.schema, site.at);
    if (result.$ref !== `${COMPONENTS}${name}`) kept[name] = result;
  }
  for (const site of documentSchemas({ ...document, components: {} })) {
    site.replace(hoist(site.schema, site.at));
  }

  const schemas: JsonObject = { ...kept };
  for (const title of [...named.keys()].sort()) {
    const entry = named.get(title) as Named;
    const description = mostUsed(entry.descriptions);
    const { description: _first, ...body } = entry.schema;
    schemas[title] = description === undefined ? body : { ...body, description };
    for (const reference of entry.references) {
      if (reference.description === description) delete reference.description;
    }
  }
  components.schemas = schemas;
}

/** The description most occurrences carry (the first seen of equals): the component's own. */
function mostUsed(descriptions: Map<string, number>): string | undefined {
  let best: [string, number] | undefined;
  for (const candidate of descriptions) if (best === undefined || candidate[1] > best[1]) best = candidate;
  return best?.[0];
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
    if (key === 'description' && at === '') continue;
    const inner = firstDifference(left[key], right[key], `${at}/${key}`);
    if (inner !== undefined) return inner;
  }
  return at;
}
