import { InvalidRequest } from './errors.ts';
import { textProblem } from './json-safety.ts';

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
      // A cursor is text the client hands back: one it made up must not reach SQL as unstorable text.
      if (
        entries.every(([k, v]) => textProblem(k, field) === undefined && textProblem(v, field) === undefined)
      ) {
        return Object.fromEntries(entries) as Record<string, string>;
      }
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

/** A cursor's position number: digits that JavaScript and PostgreSQL's bigint both hold exactly. */
export function cursorNumber(value: string | undefined, field = '/querystring/cursor'): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (/^\d+$/.test(value) && Number.isSafeInteger(number)) return number;
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
