import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../core/db/database.ts';
import { tenantTx } from '../../core/db/tenant-tx.ts';

/** Long enough for a human to read and answer, short enough that a leaked token is soon useless. */
export const CONFIRMATION_TTL_MS = 5 * 60_000;
const TOKEN_PREFIX = 'mcpc_';

/** What a confirmation token is good for: exactly this call, by this caller, in this tenant. */
export interface ConfirmationBinding {
  tenantId: string;
  subject: string;
  tool: string;
  arguments: unknown;
}

export interface IssuedConfirmation {
  token: string;
  expiresAt: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted, so the same arguments hash the same whatever their order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export async function issueConfirmation(
  db: Database,
  binding: ConfirmationBinding,
  now: number,
): Promise<IssuedConfirmation> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now + CONFIRMATION_TTL_MS);
  await tenantTx(db, { tenantId: binding.tenantId }, async (tx) => {
    // Housekeeping on the way: expired tokens of this tenant are of no use to anyone.
    await tx.query('delete from mcp_confirmations where tenant_id = $1 and expires_at < $2', [
      binding.tenantId,
      new Date(now),
    ]);
    await tx.query(
      `insert into mcp_confirmations (id, tenant_id, caller, tool, arguments_hash, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [...bindingColumns(token, binding), new Date(now), expiresAt],
    );
  });
  return { token, expiresAt: expiresAt.toISOString() };
}

/** A token's row as stored and looked up: its hash, and what it was issued for (the arguments hashed). */
function bindingColumns(token: string, binding: ConfirmationBinding): unknown[] {
  return [
    sha256(token),
    binding.tenantId,
    binding.subject,
    binding.tool,
    sha256(canonicalJson(binding.arguments)),
  ];
}

/**
 * Uses up `token` when it was issued for exactly `binding` and is neither expired nor used; true then.
 * One conditional update, so two instances racing with the same token cannot both succeed.
 */
export async function consumeConfirmation(
  db: Database,
  token: string,
  binding: ConfirmationBinding,
  now: number,
): Promise<boolean> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return false;
  const { rowCount } = await tenantTx(db, { tenantId: binding.tenantId }, (tx) =>
    tx.query(
      `update mcp_confirmations set used_at = $6
        where id = $1 and tenant_id = $2 and caller = $3 and tool = $4 and arguments_hash = $5
          and used_at is null and expires_at > $6`,
      [...bindingColumns(token, binding), new Date(now)],
    ),
  );
  return rowCount === 1;
}
