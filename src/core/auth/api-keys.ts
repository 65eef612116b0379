import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemRead, systemTx } from '../db/tenant-tx.ts';
import { AppError } from '../http/errors.ts';
import { hashApiKey, type ParsedApiKey, parseApiKey, sameHash, sameKey } from './api-key-format.ts';
import type { Principal } from './principal.ts';

interface KeyRow {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer | Uint8Array;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
}

interface CachedKey {
  row: KeyRow;
  hash: Buffer;
  fetchedAt: number;
  /** Built once per fetch: every request with this key shares it (principals are never mutated). */
  principal: Principal;
  /** The exact key bytes that last matched `hash`. */
  verified?: string;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;
const LAST_USED_FLUSH_MS = 15_000;

function invalidKey(): AppError {
  return new AppError('invalid_api_key', 'the API key is not valid: unknown, revoked, expired or malformed');
}

/**
 * Verifies tenant API keys: prefix lookup, constant-time SHA-256 comparison, revocation and expiry.
 * Verified rows are cached; revocations evict them (see RevocationList). `lastUsedAt` is collected in
 * memory and written in batches, never once per request.
 */
export class ApiKeyVerifier {
  private readonly cache = new Map<string, CachedKey>();
  private readonly lastUsed = new Map<string, number>();
  /**
   * Each prefix's read under way, shared by the requests that miss the cache meanwhile: a burst with one
   * key when its entry runs out (or at a start) reads its row once, not once per request.
   */
  private readonly reading = new Map<string, Promise<CachedKey | undefined>>();
  /** Bumped by every eviction: a lookup that raced one must not cache what it read before it. */
  private evictions = 0;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  start(onError: (error: unknown) => void): void {
    this.flushTimer = setInterval(() => this.flushLastUsed().catch(onError), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer !== undefined) clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }

  evict(keyId: string): void {
    this.evictions += 1;
    for (const [prefix, entry] of this.cache) if (entry.row.id === keyId) this.cache.delete(prefix);
    // A read under way may hold the row as it was: the requests from now on read it again.
    this.reading.clear();
  }

  /**
   * The answer for a key whose row is cached and fresh, without touching the database (the hot path);
   * undefined when the row must be read. Throws for a key that is malformed or does not verify.
   */
  verifyCached(raw: string): Principal | undefined {
    const parsed = parseApiKey(raw);
    if (parsed === undefined) throw invalidKey();
    const now = this.clock.now();
    const entry = this.cache.get(parsed.prefix);
    if (entry === undefined || now - entry.fetchedAt > CACHE_TTL_MS) return undefined;
    return this.check(parsed.full, entry, now);
  }

  async verify(raw: string): Promise<Principal> {
    const cached = this.verifyCached(raw);
    if (cached !== undefined) return cached;
    const parsed = parseApiKey(raw) as ParsedApiKey;
    const now = this.clock.now();
    const entry = await this.sharedFetch(parsed.prefix, now);
    if (entry === undefined) throw invalidKey();
    return this.check(parsed.full, entry, now);
  }

  private sharedFetch(prefix: string, now: number): Promise<CachedKey | undefined> {
    const under = this.reading.get(prefix);
    if (under !== undefined) return under;
    const read = this.fetch(prefix, now).finally(() => {
      if (this.reading.get(prefix) === read) this.reading.delete(prefix);
    });
    this.reading.set(prefix, read);
    return read;
  }

  private check(full: string, entry: CachedKey, now: number): Principal {
    const { row } = entry;
    // The key that verified last is remembered for the life of the cache entry, so a repeat caller costs a
    // constant-time byte comparison instead of a SHA-256.
    if (entry.verified === undefined || !sameKey(full, entry.verified)) {
      if (!sameHash(hashApiKey(full), entry.hash)) throw invalidKey();
      entry.verified = full;
    }
    if (row.revoked_at !== null) throw invalidKey();
    if (row.expires_at !== null && row.expires_at.getTime() <= now) throw invalidKey();
    this.lastUsed.set(row.id, now);
    return entry.principal;
  }

  private async fetch(prefix: string, now: number): Promise<CachedKey | undefined> {
    const evictionsBefore = this.evictions;
    const { rows } = await systemRead<KeyRow>(
      this.db,
      'select id, tenant_id, name, prefix, secret_hash, scopes, expires_at, revoked_at from api_keys where prefix = $1',
      [prefix],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const entry: CachedKey = {
      row,
      hash: Buffer.from(row.secret_hash),
      fetchedAt: now,
      principal: Object.freeze({
        kind: 'api_key',
        tenantId: row.tenant_id,
        apiKeyId: row.id,
        apiKey: Object.freeze({ id: row.id, name: row.name, prefix: row.prefix }),
        scopes: Object.freeze(row.scopes),
      }),
    };
    if (this.evictions !== evictionsBefore) return entry;
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(prefix, entry);
    return entry;
  }

  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const batch = [...this.lastUsed];
    this.lastUsed.clear();
    await systemTx(this.db, (tx) =>
      tx.query(
        `update api_keys k set last_used_at = greatest(coalesce(k.last_used_at, u.at), u.at)
           from (select unnest($1::text[]) as id, to_timestamp(unnest($2::float8[]) / 1000.0) as at) u
          where k.id = u.id`,
        [batch.map(([id]) => id), batch.map(([, at]) => at)],
      ),
    );
  }
}
