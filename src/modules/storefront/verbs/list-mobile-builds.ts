import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { listPage } from '../../../core/http/list-page.ts';
import type { PageQuery } from '../../../core/http/pagination.ts';
import { BUILD_COLUMNS, type BuildRow, toBuild } from '../build-row.ts';
import type { MobileBuildPage } from '../build-schema.ts';
import { findOperatorRow } from '../lookups/find-operator.ts';

/** The operator's builds, newest first. */
export async function listMobileBuilds(
  ctx: ServiceContext,
  input: Static<typeof PageQuery> & { operatorId: string },
): Promise<Static<typeof MobileBuildPage>> {
  await findOperatorRow(ctx, input.operatorId);
  return listPage(ctx, input, {
    select: `select ${BUILD_COLUMNS} from mobile_builds b`,
    orderBy: 'b.list_seq',
    keyOf: (row: BuildRow) => row.list_seq,
    view: toBuild,
    filters: (bind) => [`b.operator_id = ${bind(input.operatorId)}`],
  });
}
