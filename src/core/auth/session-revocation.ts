import type { Config } from '../../config.ts';
import type { Clock } from '../clock.ts';
import type { Database, Queryable } from '../db/database.ts';
import { tenantTx } from '../db/tenant-tx.ts';
import { AppError, NotFound } from '../http/errors.ts';
import type { Identity } from './identity.ts';

type RevocationKind = 'session' | 'actor_sessions';

/**
 * Revoking session tokens: one by its id, every token of one actor, or the token that signs out. Each is
 * recorded in the tenant's transaction, then applied on this instance at once; the others apply it at
 * their next poll.
 */
export class SessionRevoker {
  /** A revocation matters until every token it voids has expired (the same bound as its row's expires_at). */
  private readonly retainForMs: number;

  constructor(private readonly deps: { db: Database; identity: Identity; clock: Clock; config: Config }) {
    this.retainForMs = (deps.config.sessionTtlSeconds + 60) * 1000;
  }

  /** One token this tenant issued, by its id; 404 for any other id. */
  session(tenantId: string, sessionId: string): Promise<void> {
    return this.revoke(tenantId, 'session', async (tx) => {
      const { rows } = await tx.query('select 1 from issued_sessions where id = $1', [sessionId]);
      if (rows.length === 0) throw new NotFound('session', sessionId);
      return sessionId;
    });
  }

  /**
   * Every token issued so far to the actor the API names `<provider>:<external_id>`. The revocation names
   * the actor's row (what a token's `act` claim holds); 404 for an actor this tenant never connected.
   */
  actorSessions(tenantId: string, actorId: string): Promise<void> {
    return this.revoke(tenantId, 'actor_sessions', async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        'select id::text as id from actors where external_id = $1',
        [actorId],
      );
      const row = rows[0];
      if (row === undefined) throw new NotFound('actor', actorId);
      return row.id;
    });
  }

  /** Sign-out: the token that makes the call, known to be this tenant's. */
  signOut(tenantId: string, sessionId: string): Promise<void> {
    return this.revoke(tenantId, 'session', async () => sessionId);
  }

  private async revoke(
    tenantId: string,
    kind: RevocationKind,
    subjectOf: (tx: Queryable) => Promise<string>,
  ): Promise<void> {
    const at = this.deps.clock.now();
    const subject = await tenantTx(this.deps.db, { tenantId }, async (tx) => {
      const found = await subjectOf(tx);
      await recordRevocation(tx, tenantId, kind, found, at, this.retainForMs);
      return found;
    });
    this.deps.identity.revocations.apply(kind, tenantId, subject, at, at + this.retainForMs);
  }
}

/** The minting key, locked against a concurrent revocation; a key revoked already mints nothing. */
export async function assertKeyNotRevoked(tx: Queryable, apiKeyId: string): Promise<void> {
  const { rows } = await tx.query<{ revoked_at: Date | null }>(
    'select revoked_at from api_keys where id = $1 for share',
    [apiKeyId],
  );
  if (rows[0] === undefined || rows[0].revoked_at !== null) {
    throw new AppError('invalid_api_key', 'the API key is not valid: unknown, revoked, expired or malformed');
  }
}

/**
 * One row per revoked token or actor. Revoking again refreshes the row with a new sequence number, so
 * every instance's poll applies it (an actor revoked again voids the tokens minted since the last time).
 */
async function recordRevocation(
  tx: Queryable,
  tenantId: string,
  kind: RevocationKind,
  subject: string,
  /** When (the app's clock), and for how long the row matters (ms): revocation times are all on it. */
  at: number,
  retainForMs: number,
): Promise<void> {
  await tx.query(
    `insert into credential_revocations (tenant_id, kind, subject, revoked_at, expires_at)
     values ($1, $2, $3, $4::timestamptz, $5::timestamptz)
     on conflict (tenant_id, kind, subject) do update
       set seq = default, revoked_at = excluded.revoked_at, expires_at = excluded.expires_at`,
    [tenantId, kind, subject, new Date(at).toISOString(), new Date(at + retainForMs).toISOString()],
  );
}
