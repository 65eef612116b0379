import { createHmac, randomBytes } from 'node:crypto';

export const USER_AGENT = 'svc-webhooks/1';

/** `sha256=<hex>`: HMAC-SHA256 of the exact body bytes, keyed with the secret's UTF-8 bytes. */
export function svcSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * Standard Webhooks `v1,<base64>`: HMAC-SHA256 over `${id}.${timestamp}.${body}`. The key is the secret's
 * UTF-8 bytes (stock verifiers take `whsec_` + base64 of those bytes; see docs/webhooks.md).
 */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', secret)
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignedRequest {
  deliveryId: string;
  eventType: string;
  body: string;
  /** Current secret first; during a rotation grace, the retiring one second. */
  secrets: readonly string[];
  timestampSeconds: number;
  traceId: string;
  traceFlags: string;
  /** The attempt span's `traceparent` while tracing is on; else one is made of the trace id and flags. */
  traceparent?: string | undefined;
}

/**
 * Every header of a delivery request. With several secrets, each signature header lists one signature per
 * secret: `X-SVC-Signature` comma-separated, `webhook-signature` space-separated (the Standard Webhooks
 * convention). A receiver accepts the request when any listed signature matches its secret.
 */
export function deliveryHeaders(request: SignedRequest): Record<string, string> {
  const traceparent =
    request.traceparent ?? `00-${request.traceId}-${randomBytes(8).toString('hex')}-${request.traceFlags}`;
  return {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(request.body, 'utf8')),
    'user-agent': USER_AGENT,
    'x-svc-event': request.eventType,
    'x-svc-delivery': request.deliveryId,
    'x-svc-signature': request.secrets.map((s) => svcSignature(s, request.body)).join(','),
    'webhook-id': request.deliveryId,
    'webhook-timestamp': String(request.timestampSeconds),
    'webhook-signature': request.secrets
      .map((s) => standardSignature(s, request.deliveryId, request.timestampSeconds, request.body))
      .join(' '),
    traceparent,
  };
}
