import { RateLimited, ServiceUnavailable } from '../../core/http/errors.ts';

/** Retry-After of a refused upgrade: a full instance frees up (or another takes over) sooner than a person closes a tab. */
const RETRY_AFTER_SECONDS = { instance: 5, share: 30 } as const;

export interface SocketCapLimits {
  maxConnections: number;
  /** Unset: a tenant may hold the whole instance. */
  maxConnectionsPerTenant?: number;
  maxConnectionsPerActor: number;
}

export interface SocketCapNames {
  /** What the connections are called in a refusal (`realtime`, `sync`). */
  label: string;
  /** How an upgrade over the instance's cap is refused: 503 (go elsewhere) or 429 with Retry-After. */
  instanceFull: 503 | 429;
  /** The setting of each share, named in its refusal. */
  variables?: { tenant?: string; actor?: string };
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next > 0) map.set(key, next);
  else map.delete(key);
}

/**
 * The connections of one WebSocket route on one instance, in all, per tenant and per actor (`holderOf`),
 * against their caps. A slot is taken before the upgrade, so a refusal is a plain HTTP answer (429 with
 * Retry-After, or 503 for a full instance where the route says so), and given back by the function `take`
 * returns, however the connection ends.
 */
export class SocketCaps {
  private total = 0;
  private readonly perTenant = new Map<string, number>();
  private readonly perHolder = new Map<string, number>();

  constructor(
    readonly limits: SocketCapLimits,
    private readonly names: SocketCapNames,
  ) {}

  /** A slot for one more connection (its release function); throws the refusal naming the cap reached. */
  take(tenantId: string, holder: string): () => void {
    const { limits, names } = this;
    const setting = (variable: string | undefined) => (variable === undefined ? '' : ` (${variable})`);
    if (this.total >= limits.maxConnections) {
      const message = `this instance holds ${limits.maxConnections} ${names.label} connections, its limit; retry shortly`;
      if (names.instanceFull === 503) throw new ServiceUnavailable(message);
      throw new RateLimited(message, RETRY_AFTER_SECONDS.instance);
    }
    const tenantMax = limits.maxConnectionsPerTenant;
    if (tenantMax !== undefined && (this.perTenant.get(tenantId) ?? 0) >= tenantMax) {
      throw new RateLimited(
        `this tenant already has ${tenantMax} ${names.label} connections on this instance, its limit${setting(names.variables?.tenant)}; close some and retry`,
        RETRY_AFTER_SECONDS.share,
      );
    }
    if ((this.perHolder.get(holder) ?? 0) >= limits.maxConnectionsPerActor) {
      throw new RateLimited(
        `this actor already has ${limits.maxConnectionsPerActor} ${names.label} connections open on this instance, the limit${setting(names.variables?.actor)}; close one and retry`,
        RETRY_AFTER_SECONDS.share,
      );
    }
    this.total += 1;
    bump(this.perTenant, tenantId, 1);
    bump(this.perHolder, holder, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      bump(this.perTenant, tenantId, -1);
      bump(this.perHolder, holder, -1);
    };
  }

  get open(): number {
    return this.total;
  }
}
