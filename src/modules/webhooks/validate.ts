import type { Config } from '../../config.ts';
import { type ErrorDetail, InvalidRequest } from '../../core/http/errors.ts';
import { isId } from '../../core/ids.ts';
import { destinationPolicy, urlProblem } from './destinations.ts';

export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 512;
export const URL_MAX_LENGTH = 2048;

/** Collects field problems, then throws one InvalidRequest listing all of them. */
export class Problems {
  readonly details: ErrorDetail[] = [];

  add(field: string, message: string, code?: string): void {
    this.details.push(code === undefined ? { field, message } : { field, message, code });
  }

  throwIfAny(message = 'the request is not valid'): void {
    if (this.details.length > 0) throw new InvalidRequest(message, this.details);
  }
}

export function checkUrl(
  problems: Problems,
  config: Pick<Config, 'env' | 'webhookAllowedHosts'>,
  field: string,
  value: unknown,
): string {
  if (typeof value !== 'string' || value.length === 0) {
    problems.add(field, 'must be a URL', 'type');
    return '';
  }
  if (value.length > URL_MAX_LENGTH) {
    problems.add(field, `must be at most ${URL_MAX_LENGTH} characters`, 'too_long');
    return '';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.add(field, 'must be an absolute http or https URL', 'format');
    return '';
  }
  const problem = urlProblem(destinationPolicy(config), url);
  if (problem !== undefined) problems.add(field, problem, 'url_not_allowed');
  return url.href;
}

export function checkSecret(problems: Problems, field: string, value: unknown): string {
  if (typeof value !== 'string') {
    problems.add(field, 'must be a string', 'type');
    return '';
  }
  if (value.length < SECRET_MIN_LENGTH) {
    problems.add(field, `must be at least ${SECRET_MIN_LENGTH} characters`, 'too_short');
  } else if (value.length > SECRET_MAX_LENGTH) {
    problems.add(field, `must be at most ${SECRET_MAX_LENGTH} characters`, 'too_long');
  }
  return value;
}

export function checkBoolean(problems: Problems, field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') problems.add(field, 'must be true or false', 'type');
  return value === true;
}

/** A page size from 1 to 100, default 50. */
export function checkLimit(problems: Problems, field: string, value: unknown): number {
  if (value === undefined) return 50;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) {
    problems.add(field, 'must be a whole number from 1 to 100', 'range');
    return 50;
  }
  return value;
}

/** Cursors are the id of the last row of the previous page. */
export function checkCursor(
  problems: Problems,
  field: string,
  kind: 'webhookEndpoint' | 'webhookDelivery',
  value: unknown,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isId(kind, value)) {
    problems.add(field, 'must be the nextCursor of a previous page', 'format');
    return undefined;
  }
  return value;
}
