import type { Config } from '../../config.ts';
import { type ErrorDetail, InvalidRequest } from '../../core/http/errors.ts';
import { destinationPolicy, urlProblem } from './destinations.ts';

/**
 * The rules of webhook input that a schema cannot state: the destination policy (it depends on the
 * deployment) and event type patterns. They run after schema validation; each returns the problems
 * it found so a verb can report all of them in one error.
 */

/** `room.created`, `auction.bid_placed`: dot-separated lowercase segments. */
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
/** `auction.*`: every type under a prefix (at any depth), never the prefix itself. */
const PREFIX_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.\*$/;
const MAX_EVENT_TYPE_LENGTH = 100;

export function isEventType(value: string): boolean {
  return value.length <= MAX_EVENT_TYPE_LENGTH && EVENT_TYPE.test(value);
}

/**
 * The endpoint fields a create or update gives (`url`, `eventTypes`), against the destination policy and
 * the event type patterns; one InvalidRequest listing every problem.
 */
export function checkEndpointFields(
  config: Pick<Config, 'env' | 'webhookAllowedHosts'>,
  fields: { url?: string | undefined; eventTypes?: readonly string[] | null | undefined },
): void {
  rejectProblems([
    ...(fields.url === undefined ? [] : urlProblems(config, fields.url, '/body/url')),
    ...(fields.eventTypes === undefined ? [] : eventTypeProblems(fields.eventTypes, '/body/eventTypes')),
  ]);
}

/** An absolute http(s) URL the deployment's destination policy allows. */
function urlProblems(
  config: Pick<Config, 'env' | 'webhookAllowedHosts'>,
  value: string,
  field: string,
): ErrorDetail[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ field, message: 'must be an absolute http or https URL', code: 'format' }];
  }
  const problem = urlProblem(destinationPolicy(config), url);
  return problem === undefined ? [] : [{ field, message: problem, code: 'url_not_allowed' }];
}

/** The URL as stored: normalized by the URL parser. */
export function normalizedUrl(value: string): string {
  return new URL(value).href;
}

/** null (every event) or a non-empty list of exact types and `prefix.*` patterns. */
function eventTypeProblems(value: readonly string[] | null, field: string): ErrorDetail[] {
  if (value === null) return [];
  if (value.length === 0) {
    const message = 'must list at least one event type; use null to receive every event';
    return [{ field, message, code: 'empty' }];
  }
  return value.flatMap((entry, index) =>
    entry.length <= MAX_EVENT_TYPE_LENGTH && (EVENT_TYPE.test(entry) || PREFIX_PATTERN.test(entry))
      ? []
      : [
          {
            field: `${field}/${index}`,
            message: 'must be an event type like room.created or a prefix pattern like auction.*',
            code: 'pattern',
          },
        ],
  );
}

/** Duplicates removed, order kept. */
export function distinctEventTypes(value: readonly string[] | null): string[] | null {
  return value === null ? null : [...new Set(value)];
}

/** One InvalidRequest listing every problem, when there is any. */
export function rejectProblems(details: readonly ErrorDetail[]): void {
  if (details.length > 0) throw new InvalidRequest('the request is not valid', [...details]);
}
