import type { Database } from '../db/database.ts';
import { systemTx } from '../db/tenant-tx.ts';
import type { SecretEncryption } from './encryption.ts';

/**
 * A column that holds encrypted secrets, declared by its owner (core, or a module's manifest) so that
 * start-up can keep every stored value under the current key.
 */
export interface EncryptedColumn {
  table: string;
  /** The column holding `v1:<key id>:...` values. */
  column: string;
  /** The columns that identify a row; with the table and column they are each value's context. */
  rowKey: readonly string[];
  /**
   * The column the secret was kept in, in plain form, before it was encrypted: start-up encrypts what it
   * still holds into `column` and clears it, so rows written before the change keep working.
   */
  plainColumn?: string;
}

/** The context a value of `column` in the row `rowKey` is encrypted with (also in error messages). */
export function secretContext(column: EncryptedColumn, rowKey: readonly string[]): string {
  return `${column.table}.${column.column}/${rowKey.map(encodeURIComponent).join('/')}`;
}

export interface ReencryptionReport {
  /** `table.column` -> values written under the current key by this pass. */
  encrypted: Record<string, number>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const BATCH = 200;

function ident(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${JSON.stringify(name)}`);
  return `"${name}"`;
}

interface Pending {
  key: string[];
  plain: string | null;
  stored: string | null;
}

/**
 * Start-up, before the app serves: every value still in plain form is encrypted, and every value under a
 * key other than the current one is encrypted again under it. Each row is rewritten only if it still holds
 * what was read (another instance may be doing the same), so nothing written meanwhile is lost. A value
 * under a key that is not configured stops the start with the error naming that key: running on, the
 * service could not sign with it.
 */
export async function reencryptStoredSecrets(
  db: Database,
  encryption: SecretEncryption,
  columns: readonly EncryptedColumn[],
): Promise<ReencryptionReport> {
  const report: ReencryptionReport = { encrypted: {} };
  for (const column of columns) {
    const name = `${column.table}.${column.column}`;
    report.encrypted[name] = await reencryptColumn(db, encryption, column);
  }
  return report;
}

async function reencryptColumn(
  db: Database,
  encryption: SecretEncryption,
  column: EncryptedColumn,
): Promise<number> {
  const table = ident(column.table);
  const stored = ident(column.column);
  const plain = column.plainColumn === undefined ? undefined : ident(column.plainColumn);
  const keys = column.rowKey.map(ident);
  const currentPrefix = `v1:${encryption.currentKeyId}:`;
  const select = `
    select ${keys.map((k, i) => `${k}::text as k${i}`).join(', ')},
           ${plain === undefined ? 'null' : `${plain}::text`} as plain, ${stored} as stored
      from ${table}
     where ${plain === undefined ? 'false' : `${plain} is not null`}
        or (${stored} is not null and left(${stored}, ${currentPrefix.length}) <> $1)
     order by ${keys.join(', ')}
     limit ${BATCH}`;
  const keyMatch = keys.map((k, i) => `${k}::text = $${i + 3}`).join(' and ');
  const n = keys.length + 3;
  const update = `
    update ${table} set ${stored} = $1${plain === undefined ? '' : `, ${plain} = null`}
     where ${keyMatch}
       and ${stored} is not distinct from $2::text
       ${plain === undefined ? '' : `and ${plain}::text is not distinct from $${n}::text`}`;

  let written = 0;
  let idle = 0;
  for (;;) {
    const pending = await systemTx(db, async (tx) => {
      const { rows } = await tx.query<Record<string, string | null>>(select, [currentPrefix]);
      return rows.map(
        (row): Pending => ({
          key: keys.map((_, i) => String(row[`k${i}`])),
          plain: row.plain ?? null,
          stored: row.stored ?? null,
        }),
      );
    });
    if (pending.length === 0) return written;
    let progressed = 0;
    for (const row of pending) {
      const context = secretContext(column, row.key);
      const secret = row.plain ?? (row.stored === null ? undefined : encryption.decrypt(row.stored, context));
      if (secret === undefined) continue;
      const params: unknown[] = [encryption.encrypt(secret, context), row.stored, ...row.key];
      if (plain !== undefined) params.push(row.plain);
      const { rowCount } = await systemTx(db, (tx) => tx.query(update, params));
      progressed += rowCount;
    }
    written += progressed;
    // Rows another instance rewrote first are simply read again; rows that never change mean a fault.
    idle = progressed === 0 ? idle + 1 : 0;
    if (idle >= 3)
      throw new Error(`${column.table}.${column.column}: stored secrets could not be re-encrypted`);
  }
}
