/** Every problem found in an OpenAPI document (schema validity and house rules); empty = it passes. */
export function checkOpenApi(doc: unknown): Promise<string[]>;
