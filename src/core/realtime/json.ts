/** What crosses the backplane: plain JSON, so every instance decodes exactly what was sent. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Decodes one wire payload; anything that is not a JSON object is refused rather than passed on. */
export function decodeJsonObject(raw: string): JsonObject {
  const value: unknown = JSON.parse(raw);
  if (!isJsonObject(value)) throw new TypeError('backplane payload is not a JSON object');
  return value;
}
