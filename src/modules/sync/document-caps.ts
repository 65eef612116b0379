import { RateLimited, ServiceUnavailable } from '../../core/http/errors.ts';
import type { SyncLimits } from './limits.ts';

/** Retry-After of a tenant's share refused: it frees up when the tenant's clients close documents. */
const RETRY_AFTER_SECONDS = 30;

type CapLimits = Pick<SyncLimits, 'maxOpenDocuments' | 'maxDocumentsPerTenant'>;

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}

/**
 * The documents one instance holds, in all and per tenant, against their caps (the connections' caps are
 * the gateway's). A document counts from its first connection's slot, taken before the upgrade, to its last
 * one's release, loaded or not yet, so a burst of upgrades cannot pass the caps between the check and the
 * load. A refusal is a plain HTTP answer: 503 for the instance, 429 for a tenant's share.
 */
export class DocumentCaps {
  /** Document key -> slots held on it. */
  private readonly documentSlots = new Map<string, number>();
  /** Tenant -> documents it holds slots on. */
  private readonly tenantDocuments = new Map<string, number>();

  constructor(private readonly limits: CapLimits) {}

  /** A slot on the document for one more connection (its release), or the refusal naming the cap reached. */
  take(tenantId: string, documentKey: string): () => void {
    const { limits } = this;
    const newDocument = !this.documentSlots.has(documentKey);
    if (newDocument && this.documentSlots.size >= limits.maxOpenDocuments) {
      throw new ServiceUnavailable(
        `this instance holds ${limits.maxOpenDocuments} documents open, its limit; retry shortly`,
      );
    }
    if (newDocument && (this.tenantDocuments.get(tenantId) ?? 0) >= limits.maxDocumentsPerTenant) {
      throw new RateLimited(
        `this tenant already has ${limits.maxDocumentsPerTenant} documents open on this instance, its limit (SVC_SYNC_MAX_DOCUMENTS_PER_TENANT); close some and retry`,
        RETRY_AFTER_SECONDS,
      );
    }
    if (newDocument) bump(this.tenantDocuments, tenantId, 1);
    bump(this.documentSlots, documentKey, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.documentSlots, documentKey, -1);
      if (!this.documentSlots.has(documentKey)) bump(this.tenantDocuments, tenantId, -1);
    };
  }

  /** Documents held, for operators and tests. */
  get documents(): number {
    return this.documentSlots.size;
  }

  documentsOf(tenantId: string): number {
    return this.tenantDocuments.get(tenantId) ?? 0;
  }
}
