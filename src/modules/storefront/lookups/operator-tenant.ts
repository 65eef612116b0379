import type { Database } from '../../../core/db/database.ts';
import { systemRead } from '../../../core/db/tenant-tx.ts';
import { isId } from '../ids.ts';

/**
 * The tenant of an operator, for routes addressed by `/api/console/operators/:operatorId`: the console
 * guard then checks the caller's membership of it (a stranger gets the same 404 as for no operator).
 */
export async function operatorTenant(db: Database, operatorId: string): Promise<string | undefined> {
  if (!isId('operator', operatorId)) return undefined;
  const { rows } = await systemRead<{ tenant_id: string }>(
    db,
    'select tenant_id from operators where id = $1',
    [operatorId],
  );
  return rows[0]?.tenant_id;
}
