import type { Origin } from '../context.ts';

export interface TraceMetadata {
  traceId: string;
  spanId: string;
  /** The W3C sampled flag of the request's `traceparent` (01), forwarded on webhook deliveries. */
  sampled?: boolean;
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
