import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { tenantRead } from '../db/tenant-tx.ts';

export interface TenantSummary {
  id: string;
  name: string;
  workspaceType: string;
}

const TTL_MS = 1_000;
const MAX_ENTRIES = 50_000;

/**
 * Tenant names for hot read paths (`GET /v1/me`), cached for a second per instance: a rename shows
 * everywhere within that second, and the database sees one lookup per tenant per second at most,
 * however many requests arrive. Concurrent misses share one query.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, { at: number; summary: TenantSummary | undefined }>();
  private readonly pending = new Map<string, Promise<TenantSummary | undefined>>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The tenant's summary while the cached one is fresh (`summary: undefined`: no such tenant); else undefined. */
  cached(tenantId: string): { summary: TenantSummary | undefined } | undefined {
    const hit = this.cache.get(tenantId);
    return hit !== undefined && this.clock.now() - hit.at < TTL_MS ? hit : undefined;
  }

  async summary(tenantId: string): Promise<TenantSummary | undefined> {
    const hit = this.cached(tenantId);
    if (hit !== undefined) return hit.summary;
    let lookup = this.pending.get(tenantId);
    if (lookup === undefined) {
      lookup = this.load(tenantId).finally(() => this.pending.delete(tenantId));
      this.pending.set(tenantId, lookup);
    }
    return lookup;
  }

  private async load(tenantId: string): Promise<TenantSummary | undefined> {
    const { rows } = await tenantRead<{ id: string; name: string; workspace_type: string }>(
      this.db,
      { tenantId },
      'select id, name, workspace_type from tenants where id = $1',
      [tenantId],
    );
    const row = rows[0];
    const summary =
      row === undefined ? undefined : { id: row.id, name: row.name, workspaceType: row.workspace_type };
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(tenantId, { at: this.clock.now(), summary });
    return summary;
  }
}
