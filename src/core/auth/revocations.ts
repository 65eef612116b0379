import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { systemRead } from '../db/tenant-tx.ts';

/** `product_key`: a product key revoked or edited (its cached copies are dropped either way). */
export type RevocationKind = 'api_key' | 'session' | 'actor_sessions' | 'product_key';

/**
 * How long a skipped sequence number is looked for again. PostgreSQL hands out `seq` at insert but the row
 * becomes visible at commit, so a revocation can commit after a later one was already read; a rolled-back
 * insert leaves a gap forever. A revocation transaction is one short insert: a minute is ample.
 */
const GAP_WAIT_MS = 60_000;
/** A jump larger than this (e.g. a fresh instance reading old rows) is not tracked gap by gap. */
const MAX_TRACKED_GAP = 1_000;

interface Entry {
  /** When the entry stops mattering (ms); Infinity = never. */
  until: number;
}

/**
 * Every instance keeps the live revocations in memory and polls `credential_revocations` for rows past
 * the last sequence it saw, plus the skipped sequence numbers that may still commit. A revocation
 * therefore reaches every instance within one poll interval, with or without Redis, and the instance
 * that revoked applies it at once. Entries are dropped once the tokens they void have expired anyway; the
 * rows go an hour later (the retention worker: `credential_revocations`, `issued_sessions`).
 */
export class RevocationList {
  private lastSeq = 0;
  /** Skipped sequence number -> when it was first noticed missing (ms). */
  private readonly gaps = new Map<number, number>();
  /** `<tenantId>/<jti>`: a session id is only meaningful within its tenant. */
  private readonly revokedSessions = new Map<string, Entry>();
  /** Actor id -> time (ms) at or before which its session tokens are void. */
  private readonly actorCutoffs = new Map<string, Entry & { cutoff: number }>();
  /** `<tenantId>/<keyId>`: revoked API keys, kept while a session token they minted may still live. */
  private readonly revokedKeys = new Map<string, Entry>();
  private readonly keyListeners: ((keyId: string) => void)[] = [];
  private readonly productKeyListeners: ((keyId: string) => void)[] = [];
  private readonly sessionListeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    /** Revocation rows are timed on the app's clock (`revoked_at`, `expires_at`), and so is this list. */
    private readonly clock: Clock,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Returns removal (long-lived connections stop listening when they close). */
  onApiKeyRevoked(listener: (keyId: string) => void): () => void {
    this.keyListeners.push(listener);
    return () => {
      const index = this.keyListeners.indexOf(listener);
      if (index >= 0) this.keyListeners.splice(index, 1);
    };
  }

  onProductKeyChanged(listener: (keyId: string) => void): void {
    this.productKeyListeners.push(listener);
  }

  /**
   * Called whenever session tokens were revoked (by id, by actor, or with the API key that minted them), on
   * this instance at once and on the others at their next poll, so holders of long-lived connections can
   * re-check theirs. Returns removal.
   */
  onSessionsRevoked(listener: () => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  async start(): Promise<void> {
    // The backlog at start-up: its holes are expired or rolled-back rows, not commits still to come.
    await this.poll(false);
    this.timer = setInterval(() => {
      this.polling ??= this.poll(true)
        .catch(this.onError)
        .finally(() => {
          this.polling = undefined;
        });
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.polling;
  }

  isSessionRevoked(tenantId: string, jti: string, actorId: string, issuedAtMs: number): boolean {
    if (this.revokedSessions.has(`${tenantId}/${jti}`)) return true;
    const cutoff = this.actorCutoffs.get(actorId)?.cutoff;
    return cutoff !== undefined && issuedAtMs <= cutoff;
  }

  /** Whether the API key was revoked (while a session token it minted may still be alive). */
  isApiKeyRevoked(tenantId: string, keyId: string): boolean {
    return this.revokedKeys.has(`${tenantId}/${keyId}`);
  }

  /** `untilMs`: when the revocation stops mattering (the longest a voided token could still live). */
  apply(
    kind: RevocationKind | string,
    tenantId: string,
    subject: string,
    revokedAtMs: number,
    untilMs: number,
  ): void {
    if (kind === 'session') {
      const key = `${tenantId}/${subject}`;
      this.revokedSessions.set(key, { until: Math.max(this.revokedSessions.get(key)?.until ?? 0, untilMs) });
    } else if (kind === 'actor_sessions') {
      const known = this.actorCutoffs.get(subject);
      this.actorCutoffs.set(subject, {
        cutoff: Math.max(known?.cutoff ?? 0, revokedAtMs),
        until: Math.max(known?.until ?? 0, untilMs),
      });
    } else if (kind === 'api_key') {
      const key = `${tenantId}/${subject}`;
      this.revokedKeys.set(key, { until: Math.max(this.revokedKeys.get(key)?.until ?? 0, untilMs) });
      for (const listener of [...this.keyListeners]) listener(subject);
    } else if (kind === 'product_key') for (const listener of this.productKeyListeners) listener(subject);
    // A revoked API key takes the session tokens it minted with it.
    if (kind === 'session' || kind === 'actor_sessions' || kind === 'api_key') {
      for (const listener of this.sessionListeners) listener();
    }
  }

  private prune(now: number): void {
    for (const [seq, since] of this.gaps) if (now - since > GAP_WAIT_MS) this.gaps.delete(seq);
    for (const [key, entry] of this.revokedSessions) if (entry.until <= now) this.revokedSessions.delete(key);
    for (const [key, entry] of this.actorCutoffs) if (entry.until <= now) this.actorCutoffs.delete(key);
    for (const [key, entry] of this.revokedKeys) if (entry.until <= now) this.revokedKeys.delete(key);
  }

  private async poll(trackGaps: boolean): Promise<void> {
    const now = this.clock.now();
    this.prune(now);
    const { rows } = await systemRead<{
      seq: number | string;
      kind: string;
      tenant_id: string;
      subject: string;
      revoked_at: Date;
      expires_at: Date | null;
    }>(
      this.db,
      `select seq, kind, tenant_id, subject, revoked_at, expires_at from credential_revocations
          where (seq > $1 or seq = any($2::bigint[])) and (expires_at is null or expires_at > $3::timestamptz)
          order by seq limit 10000`,
      [this.lastSeq, [...this.gaps.keys()], new Date(now).toISOString()],
    );
    for (const row of rows) {
      const seq = Number(row.seq);
      const until = row.expires_at === null ? Number.POSITIVE_INFINITY : new Date(row.expires_at).getTime();
      this.apply(row.kind, row.tenant_id, row.subject, new Date(row.revoked_at).getTime(), until);
      if (this.gaps.delete(seq)) continue;
      if (trackGaps && seq - this.lastSeq - 1 <= MAX_TRACKED_GAP) {
        for (let missing = this.lastSeq + 1; missing < seq; missing++) this.gaps.set(missing, now);
      }
      this.lastSeq = Math.max(this.lastSeq, seq);
    }
  }
}
