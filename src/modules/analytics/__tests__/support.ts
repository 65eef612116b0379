import assert from 'node:assert/strict';
import { call, type TestApp } from '../../../../test/helper.ts';

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

export async function ingest(
  t: TestApp,
  headers: Record<string, string>,
  payload: unknown,
): Promise<IngestAnswer> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/analytics/events',
    headers,
    payload: payload as object,
  });
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

export async function query(t: TestApp, apiKey: string, payload: object): Promise<QueryAnswer> {
  const res = await call(t.app, {
    method: 'POST',
    url: '/v1/analytics/query',
    headers: keyOf(apiKey),
    payload,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<QueryAnswer>();
}

/** Events at the given ISO times, one per time, for one actor each unless `actor` is given. */
export function eventsAt(event: string, times: readonly string[], actor?: string): object[] {
  return times.map((timestamp, i) => ({ event, actor: actorNamed(actor ?? `test:u${i}`), timestamp }));
}

import type { ServiceContext } from '../../../core/context.ts';
import type { ModuleHost } from '../../../core/modules/hooks.ts';
import { systemContext } from '../../../core/modules/hooks.ts';

/** The module's host in a test app (what its hooks are built from). */
export function hostOf(t: TestApp): ModuleHost {
  return { ...t.app.services, log: t.app.log };
}

/** A verb context in a tenant of a test app, as the module's own work gets one. */
export function contextIn(t: TestApp, tenantId: string): ServiceContext {
  return systemContext(hostOf(t), tenantId);
}
