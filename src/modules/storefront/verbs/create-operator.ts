import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict } from '../../../core/http/errors.ts';
import { newId } from '../ids.ts';
import { OPERATOR_COLUMNS, type OperatorRow, toOperator } from '../operator-row.ts';
import type { CreateOperatorInput, OperatorView } from '../schema.ts';

export async function createOperator(ctx: ServiceContext, input: CreateOperatorInput): Promise<OperatorView> {
  try {
    return await inTenant(ctx, async (tx) => {
      const { rows } = await tx.query<OperatorRow>(
        `insert into operators (tenant_id, id, name, slug, brand, app, listing)
         values ($1, $2, $3, $4, $5, $6, $7) returning ${OPERATOR_COLUMNS}`,
        [
          ctx.tenantId,
          newId('operator', ctx.clock.now()),
          input.name,
          input.slug,
          JSON.stringify(input.brand ?? {}),
          JSON.stringify(input.app ?? {}),
          JSON.stringify(input.listing ?? {}),
        ],
      );
      const row = rows[0];
      if (row === undefined) throw new Error('operator insert returned nothing');
      return toOperator(row);
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) {
      throw new Conflict(
        `the slug ${input.slug} is taken by another operator of this tenant; choose another`,
      );
    }
    throw error;
  }
}
