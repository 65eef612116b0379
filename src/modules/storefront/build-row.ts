import { isoTime } from '../../core/db/database.ts';
import type { MobileBuildView, Platform } from './build-schema.ts';

export interface BuildRow {
  id: string;
  list_seq: number | string;
  operator_id: string;
  platform: Platform;
  submit_to_stores: boolean;
  requested_by: string | null;
  status: MobileBuildView['status'];
  error: string | null;
  build_url: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export const BUILD_COLUMNS = `id, list_seq, operator_id, platform, submit_to_stores, requested_by, status,
  error, build_url, ${isoTime('created_at')} as created_at, ${isoTime('updated_at')} as updated_at,
  ${isoTime('completed_at')} as completed_at`;

export function toBuild(row: BuildRow): MobileBuildView {
  return {
    id: row.id,
    operatorId: row.operator_id,
    platform: row.platform,
    submitToStores: row.submit_to_stores,
    requestedBy: row.requested_by,
    status: row.status,
    error: row.error,
    buildUrl: row.build_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/** What webhooks receive about a build. */
export function buildEventData(build: MobileBuildView): Record<string, unknown> {
  return {
    buildId: build.id,
    operatorId: build.operatorId,
    platform: build.platform,
    submitToStores: build.submitToStores,
    status: build.status,
    buildUrl: build.buildUrl,
    error: build.error,
  };
}
