import type { Principal } from '../../core/auth/principal.ts';
import { RateLimited, ServiceUnavailable } from '../../core/http/errors.ts';
import type { SyncLimits } from './limits.ts';

/** Retry-After of a refused upgrade: a full instance frees up sooner than a tenant's or an actor's share. */
const RETRY_AFTER_SECONDS = { instance: 5, share: 30 } as const;

type CapLimits = Pick<
  SyncLimits,
  | 'maxOpenDocuments'
  | 'maxDocumentsPerTenant'
  | 'maxConnections'
  | 'maxConnectionsPerTenant'
  | 'maxConnectionsPerActor'
>;

/** Whose share a connection counts against: the session's actor, or the API key (one server, one actor). */
export function holderOf(principal: Principal): string {
  if (principal.kind === 'session') return `actor:${principal.actor.id}`;
  if (principal.kind === 'api_key') return `key:${principal.apiKeyId}`;
  return `${principal.kind}:unknown`;
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}

/**
 * The sync connections and documents one instance holds, in all, per tenant and per actor, against their
 * caps. A slot is taken before the upgrade, so a refusal is a plain HTTP answer (503 for the instance, 429
 * for a tenant's or an actor's share), and is given back by the function `take` returns, however the
 * connection ends. A document counts from its first slot to its last one's release, loaded or not yet, so
 * a burst of upgrades cannot pass the caps between the check and the load.
 */
export class SyncCaps {
  private connections = 0;
  private readonly perTenant = new Map<string, number>();
  private readonly perHolder = new Map<string, number>();
  /** Document key -> slots held on it. */
  private readonly documentSlots = new Map<string, number>();
  /** Tenant -> documents it holds slots on. */
  private readonly tenantDocuments = new Map<string, number>();

  constructor(private readonly limits: CapLimits) {}

  /** A slot for one more connection (its release), or the refusal naming the cap that is reached. */
  take(tenantId: string, holder: string, documentKey: string): () => void {
    const { limits } = this;
    const newDocument = !this.documentSlots.has(documentKey);
    if (this.connections >= limits.maxConnections) {
      throw new ServiceUnavailable(
        `this instance holds ${limits.maxConnections} sync connections, its limit; retry shortly`,
      );
    }
    if (newDocument && this.documentSlots.size >= limits.maxOpenDocuments) {
      throw new ServiceUnavailable(
        `this instance holds ${limits.maxOpenDocuments} documents open, its limit; retry shortly`,
      );
    }
    if ((this.perTenant.get(tenantId) ?? 0) >= limits.maxConnectionsPerTenant) {
      throw new RateLimited(
        `this tenant already has ${limits.maxConnectionsPerTenant} sync connections on this instance, its limit (SVC_SYNC_MAX_CONNECTIONS_PER_TENANT); close some and retry`,
        RETRY_AFTER_SECONDS.share,
      );
    }
    if (newDocument && (this.tenantDocuments.get(tenantId) ?? 0) >= limits.maxDocumentsPerTenant) {
      throw new RateLimited(
        `this tenant already has ${limits.maxDocumentsPerTenant} documents open on this instance, its limit (SVC_SYNC_MAX_DOCUMENTS_PER_TENANT); close some and retry`,
        RETRY_AFTER_SECONDS.share,
      );
    }
    if ((this.perHolder.get(holder) ?? 0) >= limits.maxConnectionsPerActor) {
      throw new RateLimited(
        `this credential's actor already has ${limits.maxConnectionsPerActor} sync connections on this instance, the limit (SVC_SYNC_MAX_CONNECTIONS_PER_ACTOR); close one and retry`,
        RETRY_AFTER_SECONDS.share,
      );
    }
    this.connections += 1;
    bump(this.perTenant, tenantId, 1);
    bump(this.perHolder, holder, 1);
    if (newDocument) bump(this.tenantDocuments, tenantId, 1);
    bump(this.documentSlots, documentKey, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.connections -= 1;
      bump(this.perTenant, tenantId, -1);
      bump(this.perHolder, holder, -1);
      bump(this.documentSlots, documentKey, -1);
      if (!this.documentSlots.has(documentKey)) bump(this.tenantDocuments, tenantId, -1);
    };
  }

  /** Counters for operators and tests. */
  get held(): { connections: number; documents: number } {
    return { connections: this.connections, documents: this.documentSlots.size };
  }

  documentsOf(tenantId: string): number {
    return this.tenantDocuments.get(tenantId) ?? 0;
  }
}
