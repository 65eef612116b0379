import type { ErrorDetail } from '../../core/http/errors.ts';

/** `room.created`, `auction.bid_placed`: dot-separated lowercase segments. */
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
/** `auction.*`: every type under a prefix (at any depth), never the prefix itself. */
const PREFIX_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.\*$/;

export const MAX_EVENT_TYPE_ENTRIES = 100;
const MAX_EVENT_TYPE_LENGTH = 100;

export function isEventType(value: string): boolean {
  return value.length <= MAX_EVENT_TYPE_LENGTH && EVENT_TYPE.test(value);
}

/**
 * Checks an `eventTypes` input: null (every event) or a non-empty list of exact types and `prefix.*`
 * patterns. Returns the normalized list (duplicates removed, order kept) or the problems found.
 */
export function parseEventTypes(
  value: unknown,
  field: string,
): { ok: true; value: string[] | null } | { ok: false; details: ErrorDetail[] } {
  if (value === null) return { ok: true, value: null };
  if (!Array.isArray(value)) {
    return {
      ok: false,
      details: [{ field, message: 'must be an array of event types or null', code: 'type' }],
    };
  }
  if (value.length === 0) {
    const message = 'must list at least one event type; use null to receive every event';
    return { ok: false, details: [{ field, message, code: 'empty' }] };
  }
  if (value.length > MAX_EVENT_TYPE_ENTRIES) {
    const message = `must list at most ${MAX_EVENT_TYPE_ENTRIES} event types`;
    return { ok: false, details: [{ field, message, code: 'too_long' }] };
  }
  const details: ErrorDetail[] = [];
  value.forEach((entry: unknown, index) => {
    const valid =
      typeof entry === 'string' &&
      entry.length <= MAX_EVENT_TYPE_LENGTH &&
      (EVENT_TYPE.test(entry) || PREFIX_PATTERN.test(entry));
    if (!valid) {
      details.push({
        field: `${field}/${index}`,
        message: 'must be an event type like room.created or a prefix pattern like auction.*',
        code: 'pattern',
      });
    }
  });
  if (details.length > 0) return { ok: false, details };
  return { ok: true, value: [...new Set(value as string[])] };
}
