import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

function makeAjv(coerceTypes: false | 'array'): Ajv {
  const ajv = new Ajv({
    removeAdditional: false,
    allErrors: true,
    useDefaults: true,
    coerceTypes,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

/** Whether `node` is a schema (or array type) that admits `type`. */
function admits(node: Record<string, unknown>, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type));
}

/**
 * A copy of `schema` in which every integer without bounds is kept to what JavaScript counts exactly
 * (so `?before=99999999999999999999999` or `Infinity` is a 400, not a database error), and every number
 * to a finite value. Schemas that set their own bounds keep them.
 */
export function withSafeNumbers<T>(schema: T): T {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    const node: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) node[key] = walk(child);
    const limit = admits(node, 'integer')
      ? Number.MAX_SAFE_INTEGER
      : admits(node, 'number')
        ? Number.MAX_VALUE
        : undefined;
    if (limit !== undefined) {
      if (node.maximum === undefined && node.exclusiveMaximum === undefined) node.maximum = limit;
      if (node.minimum === undefined && node.exclusiveMinimum === undefined) node.minimum = -limit;
    }
    return node;
  };
  return walk(schema) as T;
}

/**
 * JSON bodies are validated as sent (2 stays a number, null stays null); query strings and path
 * parameters arrive as text, so they are coerced to the types their schemas declare.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = makeAjv(false);
  const texts = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodies : texts).compile(withSafeNumbers(schema)),
  );
}
