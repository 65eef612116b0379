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

/**
 * JSON bodies are validated as sent (2 stays a number, null stays null); query strings and path
 * parameters arrive as text, so they are coerced to the types their schemas declare.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = makeAjv(false);
  const texts = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodies.compile(schema) : texts.compile(schema),
  );
}
