import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import { PG_ERROR, pgErrorCode } from '../../../core/db/database.ts';
import { Conflict, NotFound } from '../../../core/http/errors.ts';
import { OPERATOR_COLUMNS, type OperatorRow, toOperator } from '../operator-row.ts';
import type { OperatorView, UpdateOperatorInput } from '../schema.ts';

/** Each field given replaces the stored one (brand, app and listing as a whole). */
export async function updateOperator(
  ctx: ServiceContext,
  { operatorId, ...input }: UpdateOperatorInput & { operatorId: string },
): Promise<OperatorView> {
  const json = (value: object | undefined) => (value === undefined ? null : JSON.stringify(value));
  try {
    return await inTenant(ctx, async (tx) => {
      const { rows } = await tx.query<OperatorRow>(
        `update operators set name = coalesce($2, name), slug = coalesce($3, slug),
                brand = coalesce($4::jsonb, brand), app = coalesce($5::jsonb, app),
                listing = coalesce($6::jsonb, listing), updated_at = $7::timestamptz
          where id = $1 returning ${OPERATOR_COLUMNS}`,
        [
          operatorId,
          input.name ?? null,
          input.slug ?? null,
          json(input.brand),
          json(input.app),
          json(input.listing),
          new Date(ctx.clock.now()).toISOString(),
        ],
      );
      const row = rows[0];
      if (row === undefined) throw new NotFound('operator', operatorId);
      return toOperator(row);
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_ERROR.uniqueViolation) {
      throw new Conflict(
        `the slug ${input.slug ?? ''} is taken by another operator of this tenant; choose another`,
      );
    }
    throw error;
  }
}
