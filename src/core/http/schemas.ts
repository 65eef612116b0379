import { Type } from 'typebox';
import { ERROR_CODES } from './errors.ts';

export const ErrorResponse = Type.Object(
  {
    error: Type.Union(
      ERROR_CODES.map((code) => Type.Literal(code)),
      { description: 'Stable error code' },
    ),
    message: Type.String({ description: 'What went wrong and what to change' }),
    requestId: Type.String({ description: 'Echo of X-Request-Id, for support' }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'Where the problem is, e.g. /body/name' }),
          message: Type.String(),
          code: Type.Optional(Type.String()),
        }),
        { description: 'One entry per field problem (invalid_request)' },
      ),
    ),
  },
  {
    title: 'ErrorResponse',
    description: 'The one error body of every route: a stable code, a message, the request id, field details',
    additionalProperties: false,
  },
);

/**
 * An error answer, described by `description`: the shared ErrorResponse body (one named component in the
 * OpenAPI document, as every titled schema), its description left to the component.
 */
export const errorRef = (description: string) => ({
  ...ErrorResponse,
  'x-response-description': description,
});

/** One of `values`, as a union of literals whose static type is exactly `values[number]`. */
export function oneOf<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>(
    Type.Union(
      values.map((value) => Type.Literal(value)),
      options,
    ),
  );
}

/** Any JSON object, typed as a record of unknown values. */
export function jsonObject(options: { description?: string } = {}) {
  return Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, ...options }));
}
