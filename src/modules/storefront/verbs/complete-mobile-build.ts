import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import { Conflict, NotFound } from '../../../core/http/errors.ts';
import { BUILD_COLUMNS, type BuildRow, buildEventData, toBuild } from '../build-row.ts';
import type { BuildCallbackInput, MobileBuildView } from '../build-schema.ts';

/**
 * The CI's report of a build's end (its signature was checked by the route): `queued` -> `succeeded` or
 * `failed`. A failed build may still succeed (a dispatch GitHub received but answered too late, a re-run);
 * a succeeded one stays so (409). Reporting the current outcome again changes nothing (CI retries).
 */
export async function completeMobileBuild(
  ctx: ServiceContext,
  input: BuildCallbackInput & { buildId: string },
): Promise<MobileBuildView> {
  return inTenant(ctx, async (tx, emit) => {
    const { rows } = await tx.query<BuildRow>(
      `select ${BUILD_COLUMNS} from mobile_builds where id = $1 for update`,
      [input.buildId],
    );
    const current = rows[0];
    if (current === undefined || current.status === 'dev_mode')
      throw new NotFound('mobile build', input.buildId);
    if (current.status === input.status) return toBuild(current);
    if (current.status === 'succeeded') {
      throw new Conflict(`mobile build ${input.buildId} already succeeded; it cannot fail afterwards`);
    }
    const now = new Date(ctx.clock.now()).toISOString();
    const updated = await tx.query<BuildRow>(
      `update mobile_builds set status = $2, build_url = coalesce($3, build_url), error = $4,
              updated_at = $5::timestamptz, completed_at = $5::timestamptz
        where id = $1 returning ${BUILD_COLUMNS}`,
      [
        input.buildId,
        input.status,
        input.buildUrl ?? null,
        input.status === 'failed' ? (input.error ?? 'the build failed') : null,
        now,
      ],
    );
    const row = updated.rows[0];
    if (row === undefined) throw new NotFound('mobile build', input.buildId);
    const build = toBuild(row);
    await emit(`mobile_build.${input.status}`, buildEventData(build));
    return build;
  });
}
