import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from 'typebox';
import { type AjvIssue, detailsFromValidation } from '../http/error-handler.ts';
import { InvalidRequest } from '../http/errors.ts';
import { withSafeNumbers } from '../http/validation.ts';

// The same options Fastify validates route input with, so an action refuses exactly what its route does.
const ajv = new Ajv({
  removeAdditional: false,
  allErrors: true,
  coerceTypes: false,
  useDefaults: true,
  strict: false,
});
addFormats.default(ajv);

const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(withSafeNumbers(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validates (and fills defaults into) a copy of `value`; 400 invalid_request with details otherwise. */
export function validated<T>(schema: TSchema, value: unknown, context: string): T {
  const copy = value === undefined ? {} : structuredClone(value);
  const validate = validatorFor(schema);
  if (!validate(copy)) {
    const details = detailsFromValidation((validate.errors ?? []) as AjvIssue[], context);
    const first = details[0];
    throw new InvalidRequest(
      first === undefined ? 'invalid input' : `invalid ${context}: ${first.field} ${first.message}`,
      details,
    );
  }
  return copy as T;
}
