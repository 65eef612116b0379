import { type TProperties, type TSchema, Type } from 'typebox';

/**
 * Shapes the API's schemas are made of, written once: every titled object is a named component of the
 * OpenAPI document (`components.schemas.<title>`).
 */

/** A resource the API answers: an object named `title`, with what it is. */
export function resource<P extends TProperties>(title: string, description: string, properties: P) {
  return Type.Object(properties, { title, description });
}

/** What a request sends (a body, an action's arguments): an object named `title` that takes no other field. */
export function closedInput<P extends TProperties>(title: string, description: string, properties: P) {
  return Type.Object(properties, { title, description, additionalProperties: false });
}

/** An object that takes no other field, not named (it stays inline in the document). */
export function closed<P extends TProperties>(properties: P) {
  return Type.Object(properties, { additionalProperties: false });
}

/** `schema`, or null. */
export function nullable<T extends TSchema>(schema: T, options: { description?: string } = {}) {
  return Type.Union([schema, Type.Null()], options);
}

/** An instant as the API writes it: ISO 8601 in UTC. */
export function dateTime() {
  return Type.String({ format: 'date-time' });
}
