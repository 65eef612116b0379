import assert from 'node:assert/strict';
import { bearer, type TestTenant } from '../../../../test/factories.ts';
import { call, type Response, type TestApp } from '../../../../test/helper.ts';
import { type AppSuite, appSuite } from '../../../../test/support/suite.ts';
import { ManualClock } from '../../../core/clock.ts';
import type { ServiceContext } from '../../../core/context.ts';
import type { ModuleHost } from '../../../core/modules/hooks.ts';
import { systemContext } from '../../../core/modules/hooks.ts';

export const keyOf = (apiKey: string) => ({ 'x-api-key': apiKey });

/** The Actor object an event names, for a provider-qualified id like `test:ann` (an end user). */
export function actorNamed(id: string): { type: 'end_user'; id: string; identityProvider: string } {
  return { type: 'end_user', id, identityProvider: id.slice(0, id.indexOf(':')) };
}

export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: number;
  rejections: { index: number; reason: string; message: string; messageId?: string }[];
}

/** `[index, reason]` of each event an ingestion refused. */
export function rejectionReasons(answer: IngestAnswer): [number, string][] {
  return answer.rejections.map((r) => [r.index, r.reason]);
}

/** Events accepted and duplicates over several answers (requests that raced). */
export function acceptedAndDuplicates(answers: readonly IngestAnswer[]): [number, number] {
  return [answers.reduce((n, a) => n + a.accepted, 0), answers.reduce((n, a) => n + a.duplicates, 0)];
}

/** POST /v1/analytics/events as it is answered (`options.remoteAddress`: the client's address). */
export function postEvents(
  t: TestApp,
  headers: Record<string, string>,
  payload: unknown,
  options: { remoteAddress?: string } = {},
): Promise<Response> {
  return call(t.app, {
    method: 'POST',
    url: '/v1/analytics/events',
    headers,
    payload: typeof payload === 'string' ? payload : (payload as object),
    ...options,
  });
}

/** POST /v1/analytics/events, answered 202: the answer. */
export async function ingest(
  t: TestApp,
  headers: Record<string, string>,
  payload: unknown,
): Promise<IngestAnswer> {
  const res = await postEvents(t, headers, payload);
  assert.equal(res.statusCode, 202, res.body);
  return res.json<IngestAnswer>();
}

export interface QueryAnswer {
  timezone: string;
  interval: string | null;
  dateRange: { from: string; to: string };
  totals: Record<string, number | null>;
  buckets?: { start: string; end: string; startLocal: string; values: Record<string, number | null> }[];
  breakdown?: {
    value: string | null;
    other: boolean;
    values: Record<string, number | null>;
    buckets?: unknown[];
  }[];
  source: 'rollup' | 'raw';
}

/** POST /v1/analytics/query as it is answered, with `headers` (an API key's by default). */
export function postQuery(t: TestApp, headers: Record<string, string>, payload: object): Promise<Response> {
  return call(t.app, { method: 'POST', url: '/v1/analytics/query', headers, payload });
}

/** POST /v1/analytics/query, answered 200: the answer. */
export async function query(t: TestApp, apiKey: string, payload: object): Promise<QueryAnswer> {
  const res = await postQuery(t, keyOf(apiKey), payload);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<QueryAnswer>();
}

/** Events at the given ISO times, one per time, for one actor each unless `actor` is given. */
export function eventsAt(event: string, times: readonly string[], actor?: string): object[] {
  return times.map((timestamp, i) => ({ event, actor: actorNamed(actor ?? `test:u${i}`), timestamp }));
}

/** The suite's tenant number `index` (0 is `s.tenant`). */
export function tenantOf(s: AppSuite, index: number): TestTenant {
  const tenant = s.tenants[index];
  if (tenant === undefined) throw new Error(`the suite has no tenant ${index}`);
  return tenant;
}

/** A product key of the tenant (POST .../product-keys as the owner): its secret. */
export async function createProductKey(t: TestApp, tenant: TestTenant, body: object = {}): Promise<string> {
  const res = await call(t.app, {
    method: 'POST',
    url: `/api/console/tenants/${tenant.tenantId}/product-keys`,
    headers: bearer(tenant.ownerToken),
    payload: { name: 'storefront', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ key: string }>().key;
}

/** The module's host in a test app (what its hooks are built from). */
export function hostOf(t: TestApp): ModuleHost {
  return { ...t.app.services, log: t.app.log };
}

/** A verb context in a tenant of a test app, as the module's own work gets one. */
export function contextIn(t: TestApp, tenantId: string): ServiceContext {
  return systemContext(hostOf(t), tenantId);
}

/** Ingestion suites run at this time (mid-June 2026) on a manual clock. */
export const INGESTION_NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

/**
 * An app on a manual clock at INGESTION_NOW with one tenant, and `count(event)`: how many of the tenant's
 * events of that name are recorded in the year around it.
 */
export function ingestionSuite() {
  const clock = new ManualClock(INGESTION_NOW);
  const s = appSuite({ clock });
  const count = async (event: string) =>
    (
      await query(s.t, s.tenant.apiKey, {
        event,
        dateRange: { from: '2025-06-01T00:00:00Z', to: '2026-07-01T00:00:00Z' },
      })
    ).totals.events;
  return { s, clock, count };
}
