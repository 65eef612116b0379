import { Ajv, type ValidateFunction } from 'ajv';
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
 * A validator that compiles `schema` when it first validates: compiling every route's schemas at start-up
 * cost seconds of CPU before the service could listen, for routes most runs never call. It passes Fastify's
 * data context through (as a compiled Ajv function does), so Ajv can coerce and default a root value.
 */
function compileOnFirstUse(ajv: Ajv, schema: unknown): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown, context?: unknown) => {
    compiled ??= ajv.compile(withSafeNumbers(schema) as object);
    const valid = compiled(data, context as Parameters<ValidateFunction>[1]);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  // Fastify passes the data context only to functions that look compiled by Ajv (they have `schemaEnv`).
  Object.defineProperty(validate, 'schemaEnv', { get: () => compiled?.schemaEnv ?? true });
  return validate;
}

/**
 * JSON bodies are validated as sent (2 stays a number, null stays null); query strings and path
 * parameters arrive as text, so they are coerced to the types their schemas declare.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = makeAjv(false);
  const texts = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    compileOnFirstUse(httpPart === 'body' ? bodies : texts, schema),
  );
}
