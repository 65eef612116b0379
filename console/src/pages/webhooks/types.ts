import type { components } from '@svc/client';

/** The API's shapes the webhooks and events pages show (from the OpenAPI document, through the SDK). */
export type Endpoint = components['schemas']['WebhookEndpoint'];
export type Delivery = components['schemas']['WebhookDelivery'];
export type DeliveryDetail = components['schemas']['WebhookDeliveryDetail'];
export type Attempt = components['schemas']['WebhookAttempt'];
export type DeliveryState = Delivery['state'];
export type TenantEvent = components['schemas']['Event'];

export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'dead_lettered'];

/** `dead_lettered` -> `dead-lettered`: a state as people read it. */
export function stateLabel(state: string): string {
  return state.replaceAll('_', '-');
}

/** An endpoint's event types as one line: "all events" when it takes every type. */
export function eventTypesLabel(eventTypes: readonly string[] | null): string {
  return eventTypes === null ? 'All events' : eventTypes.join(', ');
}

/** A path segment for an id. */
export const seg = encodeURIComponent;

/**
 * A `datetime-local` input's value (local time, no zone) as ISO 8601 UTC for the API, or undefined when
 * empty or unreadable. The query string keeps the ISO value, so a shared link means the same instant.
 */
export function isoOfLocal(value: string): string | undefined {
  if (value === '') return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The other way: an ISO time as a `datetime-local` value in the browser's zone ('' when absent). */
export function localOfIso(value: string | null | undefined): string {
  if (value === undefined || value === null || value === '') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * A new signing secret made in the browser (32 random bytes as 43 base64url characters): the console shows
 * it once, and only the service keeps it. The HMAC key is this text's UTF-8 bytes (see docs/webhooks.md).
 */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const text = btoa(String.fromCharCode(...bytes));
  return text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
