/** Room metadata as people type it: `key=value` pairs, separated by commas or new lines. */

export type MetadataValue = string | number | boolean;

/** `tier=2, brand=acme` -> pairs, or the first entry that is not `key=value`. */
export function parsePairs(text: string): { pairs: [string, string][] } | { error: string } {
  const pairs: [string, string][] = [];
  for (const entry of text.split(/[,\n]/)) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const at = trimmed.indexOf('=');
    if (at <= 0) return { error: `"${trimmed}" is not key=value` };
    pairs.push([trimmed.slice(0, at).trim(), trimmed.slice(at + 1).trim()]);
  }
  return { pairs };
}

/** A typed value as the API stores it: `true`/`false` as booleans, plain numbers as numbers, else text. */
export function metadataValue(text: string): MetadataValue {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text) && text.length < 16) return Number(text);
  return text;
}

/** Metadata as the pairs people type: `tier=2, brand=acme`. */
export function formatPairs(metadata: Record<string, unknown>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(', ');
}

/** The `metadata.<key>=<value>` filters of a page's query string, as pairs. */
export function filtersOf(query: URLSearchParams): [string, string][] {
  return [...query.entries()]
    .filter(([key]) => key.startsWith('metadata.'))
    .map(([key, value]) => [key.slice('metadata.'.length), value]);
}
