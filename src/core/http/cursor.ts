import { InvalidRequest } from './errors.ts';

/** Opaque page cursors: base64url JSON, so their shape can change without breaking clients. */
export function encodeCursor(value: Record<string, string>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor(
  cursor: string | undefined,
  field = '/querystring/cursor',
): Record<string, string> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const entries = Object.entries(value).filter(([, v]) => typeof v === 'string');
      return Object.fromEntries(entries) as Record<string, string>;
    }
  } catch {
    // fall through
  }
  throw new InvalidRequest('the cursor is not one this API issued', [
    {
      field,
      message: 'is not a valid cursor; pass nextCursor from the previous page',
      code: 'invalid_cursor',
    },
  ]);
}

/** `like` pattern for a literal prefix. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
