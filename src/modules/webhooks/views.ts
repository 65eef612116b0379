import type {
  AttemptErrorClass,
  DeliveryState,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from './schema.ts';

/** Row shapes as both drivers return them (timestamptz -> Date, text[] -> string[]). */
export interface EndpointRow {
  id: string;
  url: string;
  description: string;
  event_types: string[] | null;
  enabled: boolean;
  previous_secret_expires_at: Date | null;
  consecutive_timeouts: number;
  circuit_opened_at: Date | null;
  circuit_open_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ENDPOINT_COLUMNS = `id, url, description, event_types, enabled, previous_secret_expires_at, consecutive_timeouts,
  circuit_opened_at, circuit_open_until, created_at, updated_at`;

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  state: DeliveryState;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error_class: AttemptErrorClass | null;
  created_at: Date;
  delivered_at: Date | null;
  dead_lettered_at: Date | null;
}

export const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, state, attempt_count, next_attempt_at,
  last_attempt_at, last_status_code, last_error_class, created_at, delivered_at, dead_lettered_at`;

export interface AttemptRow {
  attempt: number;
  cycle: number;
  started_at: Date;
  duration_ms: number | null;
  status_code: number | null;
  error_class: AttemptErrorClass | null;
  error_message: string | null;
  response_body_excerpt: string | null;
}

export const ATTEMPT_COLUMNS =
  'attempt, cycle, started_at, duration_ms, status_code, error_class, error_message, response_body_excerpt';

export function iso(value: Date): string;
export function iso(value: Date | null): string | null;
export function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

export function endpointView(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    enabled: row.enabled,
    previousSecretExpiresAt: iso(row.previous_secret_expires_at),
    circuit: {
      consecutiveTimeouts: row.consecutive_timeouts,
      openedAt: iso(row.circuit_opened_at),
      openUntil: iso(row.circuit_open_until),
    },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function deliveryView(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    attemptCount: row.attempt_count,
    nextAttemptAt: iso(row.next_attempt_at),
    lastAttemptAt: iso(row.last_attempt_at),
    lastStatusCode: row.last_status_code,
    lastErrorClass: row.last_error_class,
    createdAt: iso(row.created_at),
    deliveredAt: iso(row.delivered_at),
    deadLetteredAt: iso(row.dead_lettered_at),
  };
}

export function attemptView(row: AttemptRow): WebhookAttempt {
  return {
    attempt: row.attempt,
    cycle: row.cycle,
    startedAt: iso(row.started_at),
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    errorClass: row.error_class,
    errorMessage: row.error_message,
    responseBodyExcerpt: row.response_body_excerpt,
  };
}
