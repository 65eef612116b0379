import { type components, isSvcError } from '@svc/client';
import { tenantRoute } from '../../lib/router.tsx';

/** The tenant of the current page (the shell shows tenant pages only under `/t/:tenantId/`). */
export function currentTenantId(): string {
  return tenantRoute.value?.tenantId ?? '';
}

/** The path parameters of a console tenant route. */
export function tenantParams(): { path: { tenantId: string } } {
  return { path: { tenantId: currentTenantId() } };
}

/**
 * The field problems of an `invalid_request`, by the part of the field path after `prefix`
 * (`/body/config/maxLength` under `/body/config/` -> `maxLength`; a deeper path is told by `where`).
 * Problems outside `prefix` are under `''`. Several problems of one field are joined.
 */
export function fieldErrors(
  error: unknown,
  prefix: string,
  where: (deeper: string[]) => string = (deeper) => ` (at ${deeper.join('/')})`,
): Record<string, string> {
  if (!isSvcError(error) || error.error !== 'invalid_request') return {};
  const out: Record<string, string> = {};
  for (const detail of error.details) {
    const rest = detail.field.startsWith(prefix) ? detail.field.slice(prefix.length) : undefined;
    const [first, ...deeper] = rest === undefined ? [] : rest.split('/');
    const key = first ?? '';
    const place = deeper.length === 0 ? '' : where(deeper);
    const message = `${humanMessage(detail.code, detail.message)}${place}`;
    out[key] = out[key] === undefined ? message : `${out[key]}; ${message}`;
  }
  return out;
}

/** Ajv's pattern message quotes a regular expression no user should have to read. */
function humanMessage(code: string | undefined, message: string): string {
  return code === 'pattern' ? 'is not in the expected form' : message;
}

/** Lines of a textarea, trimmed, blank ones dropped. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export type Role = components['schemas']['TeamEntry']['role'];
/** The roles, highest first, as the API names them. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];
/** The role a select's value names (the select offers only ROLES). */
export const roleOf = (value: string): Role => ROLES.find((r) => r === value) ?? 'viewer';
