import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemRead } from '../db/tenant-tx.ts';
import { AppError } from '../http/errors.ts';
import { isProductKeyShaped } from './api-key-format.ts';
import type { ProductPrincipal } from './principal.ts';

interface ProductKeyRow {
  id: string;
  tenant_id: string;
  revoked_at: Date | null;
  allowed_origins: string[];
  rate_limit_per_minute: number;
  operator_id: string | null;
}

interface CachedProductKey {
  keyId: string;
  fetchedAt: number;
  /** Undefined for a revoked key: it is refused from memory until the entry expires or is evicted. */
  principal: ProductPrincipal | undefined;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/** The one answer for a product key that does not verify; it names the header to send. */
export function invalidProductKey(detail = 'unknown or revoked'): AppError {
  return new AppError(
    'invalid_api_key',
    `the product key is not valid (${detail}); send a live product key (pk_...) in the X-SVC-Product-Key header`,
  );
}

/**
 * Verifies publishable product keys. They are not secrets (a page embeds them), so the row is found by the
 * key itself; what matters is that it exists and is not revoked. Rows are cached like API keys' and a
 * revocation or an edit evicts them on every instance within the revocation poll (RevocationList).
 */
export class ProductKeyVerifier {
  private readonly cache = new Map<string, CachedProductKey>();
  /** Bumped by every eviction: a lookup that raced one must not cache what it read before it. */
  private evictions = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  evict(keyId: string): void {
    this.evictions += 1;
    for (const [key, entry] of this.cache) if (entry.keyId === keyId) this.cache.delete(key);
  }

  /** The answer from memory when the row is cached and fresh; undefined when it must be read. */
  verifyCached(raw: string): ProductPrincipal | undefined {
    if (!isProductKeyShaped(raw)) throw invalidProductKey('malformed');
    const entry = this.cache.get(raw);
    if (entry === undefined || this.clock.now() - entry.fetchedAt > CACHE_TTL_MS) return undefined;
    if (entry.principal === undefined) throw invalidProductKey();
    return entry.principal;
  }

  async verify(raw: string): Promise<ProductPrincipal> {
    const cached = this.verifyCached(raw);
    if (cached !== undefined) return cached;
    const entry = await this.fetch(raw);
    if (entry?.principal === undefined) throw invalidProductKey();
    return entry.principal;
  }

  private async fetch(key: string): Promise<CachedProductKey | undefined> {
    const evictionsBefore = this.evictions;
    const now = this.clock.now();
    const { rows } = await systemRead<ProductKeyRow>(
      this.db,
      `select id, tenant_id, revoked_at, allowed_origins, rate_limit_per_minute, operator_id
           from product_keys where key = $1`,
      [key],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const entry: CachedProductKey = {
      keyId: row.id,
      fetchedAt: now,
      principal: row.revoked_at !== null ? undefined : principalOf(row),
    };
    if (this.evictions !== evictionsBefore) return entry;
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(key, entry);
    return entry;
  }
}

function principalOf(row: ProductKeyRow): ProductPrincipal {
  return Object.freeze({
    kind: 'product',
    tenantId: row.tenant_id,
    scopes: Object.freeze([]),
    productKeyId: row.id,
    ...(row.operator_id === null ? {} : { operatorId: row.operator_id }),
    restrictions: Object.freeze({
      allowedOrigins: Object.freeze([...row.allowed_origins]),
      requestsPerMinute: row.rate_limit_per_minute,
    }),
  });
}
