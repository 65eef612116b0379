import type { Clock } from '../../core/clock.ts';
import { type Database, pgErrorCode } from '../../core/db/database.ts';

/** The SQLSTATE of `webhook_endpoints_appeared` (migration 0054). */
export const ENDPOINTS_APPEARED = 'SVW01';

/** A tenant known to have endpoints is looked at again after this long (they may all have gone). */
const RECHECK_MS = 60_000;
/** Tenants remembered at most (the map is cleared past it: a look costs one small query). */
const MAX_TENANTS = 10_000;

/**
 * Which tenants this app knows to have no enabled webhook endpoint. Their events are written without the
 * webhook fan-out, whose parameters carry every event's delivery body serialized (most of the bytes of
 * a group of bids, for no row when nobody listens); the statement then only checks (`guard`): an enabled
 * endpoint of the tenant, made or enabled since on any instance, fails it whole (SQLSTATE SVW01), and the
 * event store writes it again with the fan-out. So the knowledge may be stale, never wrong: no event
 * commits without the deliveries its endpoints should get.
 *
 * It is learned after the fact: a statement that queued no delivery for a tenant not known has it looked
 * up (once at a time per tenant), off the write's path.
 */
export class EndpointPresence {
  private readonly known = new Map<string, { some: boolean; at: number }>();
  private readonly looking = new Set<string>();

  constructor(
    private readonly hasEndpoints: (tenantId: string) => Promise<boolean>,
    private readonly clock: Clock,
    private readonly failed: (error: unknown) => void = () => {},
  ) {}

  /** True when the tenant had no enabled endpoint when last looked at (its writes then check, see above). */
  none(tenantId: string): boolean {
    return this.known.get(tenantId)?.some === false;
  }

  /** After a write for the tenant committed, with the deliveries it queued. */
  written(tenantId: string, queued: number): void {
    const now = this.clock.now();
    if (queued > 0) {
      this.remember(tenantId, true, now);
      return;
    }
    const entry = this.known.get(tenantId);
    if (entry !== undefined && (!entry.some || now - entry.at < RECHECK_MS)) return;
    if (this.looking.has(tenantId)) return;
    this.looking.add(tenantId);
    this.hasEndpoints(tenantId)
      .then((some) => this.remember(tenantId, some, this.clock.now()), this.failed)
      .finally(() => this.looking.delete(tenantId));
  }

  /** Whether `error` is a write's check finding an endpoint; the tenant is then no longer known. */
  appeared(error: unknown, tenantId: string): boolean {
    if (pgErrorCode(error) !== ENDPOINTS_APPEARED) return false;
    this.known.delete(tenantId);
    return true;
  }

  private remember(tenantId: string, some: boolean, at: number): void {
    if (this.known.size >= MAX_TENANTS && !this.known.has(tenantId)) this.known.clear();
    this.known.set(tenantId, { some, at });
  }
}

/** The check that replaces the fan-out while the tenant is known to have no endpoint (see above). */
export function endpointsAppearedGuard(tenantId: string, bind: (value: unknown) => string): string {
  const tenant = bind(tenantId);
  return `select webhook_endpoints_appeared(e.tenant_id) as appeared from webhook_endpoints e
    where e.tenant_id = ${tenant} and e.enabled limit 1`;
}

/** Whether the tenant has an enabled endpoint now (EndpointPresence's look-up). */
export async function hasEnabledEndpoints(db: Database, tenantId: string): Promise<boolean> {
  const { rows } = await db.tenantQuery<{ some: boolean }>(
    tenantId,
    'select exists (select 1 from webhook_endpoints where tenant_id = $1 and enabled) as some',
    [tenantId],
  );
  return rows[0]?.some === true;
}
