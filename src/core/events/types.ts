import type { Origin } from '../contexts.ts';
import type { Actor } from '../tenancy/actors.ts';

/**
 * Who caused an event, by public ids only: an API key (`key_...`), a console user (`usr_...`), or a
 * runtime actor as the API's Actor object (its provider-qualified id, never the internal row id).
 */
export type TraceActor =
  | { kind: 'api_key'; id: string }
  | { kind: 'user'; id: string }
  | ({ kind: 'actor' } & Actor);

export interface TraceMetadata {
  traceId: string;
  spanId: string;
  /** The W3C sampled flag of the request's `traceparent` (01), forwarded on webhook deliveries. */
  sampled?: boolean;
  requestId: string;
  origin: Origin;
  actor?: TraceActor;
}

export interface TenantEvent {
  id: string;
  tenantId: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
  trace: TraceMetadata;
}
