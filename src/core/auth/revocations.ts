import type { Database } from '../db/database.ts';
import { systemTx } from '../db/tenant-tx.ts';

/**
 * Every instance keeps the live revocations in memory and polls `credential_revocations` for rows past
 * the last sequence it saw. A revocation therefore reaches every instance within one poll interval,
 * with or without Redis, and the instance that revoked applies it at once.
 */
export class RevocationList {
  private lastSeq = 0;
  private readonly revokedSessions = new Set<string>();
  /** Actor id -> time (ms) before which its session tokens are void. */
  private readonly actorCutoffs = new Map<string, number>();
  private readonly keyListeners: ((keyId: string) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  onApiKeyRevoked(listener: (keyId: string) => void): void {
    this.keyListeners.push(listener);
  }

  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => {
      this.polling ??= this.poll()
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

  isSessionRevoked(jti: string, actorId: string, issuedAtMs: number): boolean {
    if (this.revokedSessions.has(jti)) return true;
    const cutoff = this.actorCutoffs.get(actorId);
    return cutoff !== undefined && issuedAtMs <= cutoff;
  }

  apply(kind: string, subject: string, revokedAtMs: number): void {
    if (kind === 'session') this.revokedSessions.add(subject);
    else if (kind === 'actor_sessions') {
      this.actorCutoffs.set(subject, Math.max(this.actorCutoffs.get(subject) ?? 0, revokedAtMs));
    } else if (kind === 'api_key') for (const listener of this.keyListeners) listener(subject);
  }

  private async poll(): Promise<void> {
    const { rows } = await systemTx(this.db, (tx) =>
      tx.query<{ seq: number | string; kind: string; subject: string; revoked_at: Date }>(
        `select seq, kind, subject, revoked_at from credential_revocations
          where seq > $1 and (expires_at is null or expires_at > now())
          order by seq limit 10000`,
        [this.lastSeq],
      ),
    );
    for (const row of rows) {
      this.apply(row.kind, row.subject, new Date(row.revoked_at).getTime());
      this.lastSeq = Math.max(this.lastSeq, Number(row.seq));
    }
  }
}
