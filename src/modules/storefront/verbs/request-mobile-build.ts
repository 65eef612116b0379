import type { Static } from 'typebox';
import type { ServiceContext } from '../../../core/context.ts';
import { inTenant } from '../../../core/context.ts';
import { BUILD_COLUMNS, type BuildRow, buildEventData, toBuild } from '../build-row.ts';
import type { MobileBuildAnswer, MobileBuildInput, MobileBuildView } from '../build-schema.ts';
import { callbackSecret, DispatchRefused, sendDispatch } from '../github-dispatch.ts';
import { newId } from '../ids.ts';
import { findOperatorRow } from '../lookups/find-operator.ts';
import { resolveBrand } from '../operator-row.ts';
import { getStorefront } from './get-storefront.ts';

type Status = MobileBuildView['status'];

interface BuildFacts {
  id: string;
  operatorId: string;
  platform: MobileBuildInput['platform'];
  submitToStores: boolean;
  requestedBy: string | undefined;
}

/** The build's row and, unless it is a development-mode build, its event: one transaction. */
async function recordBuild(
  ctx: ServiceContext,
  facts: BuildFacts,
  status: Status,
  error: string | null,
): Promise<MobileBuildView> {
  return inTenant(ctx, async (tx, emit) => {
    const now = new Date(ctx.clock.now()).toISOString();
    const { rows } = await tx.query<BuildRow>(
      `insert into mobile_builds (tenant_id, id, operator_id, platform, submit_to_stores, requested_by, status,
                                  error, created_at, updated_at, completed_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $9::timestamptz,
               case when $7 = 'failed' then $9::timestamptz end)
       returning ${BUILD_COLUMNS}`,
      [
        ctx.tenantId,
        facts.id,
        facts.operatorId,
        facts.platform,
        facts.submitToStores,
        facts.requestedBy ?? null,
        status,
        error,
        now,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error('mobile build insert returned nothing');
    const build = toBuild(row);
    if (status !== 'dev_mode') await emit(`mobile_build.${status}`, buildEventData(build));
    return build;
  });
}

/**
 * Queues a white-label build of the operator's app: GitHub's repository dispatch to the build repository,
 * then the build recorded as `queued` (with `mobile_build.queued`). Without a dispatch token, development
 * mode: the build is recorded as `dev_mode` and nothing is sent. A refused or unanswered dispatch is
 * recorded as `failed` (with `mobile_build.failed`) and answered with GitHub's reason; the row is written
 * once, after the dispatch's outcome is known, so no build is ever left half-recorded.
 */
export async function requestMobileBuild(
  ctx: ServiceContext,
  input: MobileBuildInput & { operatorId: string; requestedBy?: string | undefined },
): Promise<Static<typeof MobileBuildAnswer>> {
  const operator = await findOperatorRow(ctx, input.operatorId);
  const facts: BuildFacts = {
    id: newId('mobileBuild', ctx.clock.now()),
    operatorId: operator.id,
    platform: input.platform,
    submitToStores: input.submitToStores ?? false,
    requestedBy: input.requestedBy,
  };
  const { dispatchToken, repository, githubApiUrl } = ctx.config.mobileBuild;
  if (dispatchToken === undefined || repository === undefined) {
    return { queued: false, devMode: true, build: await recordBuild(ctx, facts, 'dev_mode', null) };
  }
  const storefront = await getStorefront(ctx);
  // At most 10 top-level properties: GitHub's limit for client_payload.
  const clientPayload = {
    buildId: facts.id,
    tenantId: ctx.tenantId,
    operatorId: operator.id,
    platform: facts.platform,
    submitToStores: facts.submitToStores,
    operator: { name: operator.name, slug: operator.slug },
    app: operator.app,
    brand: resolveBrand(storefront.brand, operator.brand),
    callback: {
      url: `${ctx.config.publicUrl.replace(/\/+$/, '')}/api/public/mobile-builds/${facts.id}/callback`,
      secret: callbackSecret(dispatchToken, facts.id),
    },
  };
  try {
    await sendDispatch(
      { apiUrl: githubApiUrl, repository, token: dispatchToken },
      clientPayload,
      ctx.clock.now(),
    );
  } catch (error) {
    if (!(error instanceof DispatchRefused)) throw error;
    await recordBuild(ctx, facts, 'failed', error.recorded);
    throw error.answer;
  }
  return { queued: true, devMode: false, build: await recordBuild(ctx, facts, 'queued', null) };
}
