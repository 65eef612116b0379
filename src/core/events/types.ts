import type { Origin } from '../context.ts';

export interface TraceMetadata {
  traceId: string;
  spanId: string;
  requestId: string;
  origin: Origin;
  /** Who caused it: an API key, a console user, or a runtime actor. */
  actor?: { kind: 'api_key' | 'user' | 'actor'; id: string; type?: string; externalId?: string };
}

export interface TenantEvent {
  id: string;
  tenantId: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
  trace: TraceMetadata;
}

/** Called inside the emitting transaction (e.g. webhook fan-out): it commits or rolls back with the event. */
export type InTransactionHandler = (
  tx: import('../db/database.ts').Queryable,
  event: TenantEvent,
) => Promise<void>;
