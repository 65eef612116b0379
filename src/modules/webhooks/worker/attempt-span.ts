import { type SpanHandle, startSpan } from '../../../core/ops/tracing/spans.ts';
import type { ClaimedDelivery } from './claim.ts';
import type { AttemptOutcome } from './send.ts';

/**
 * While tracing is on, one client span per attempt, in the event's trace as a child of the span that
 * recorded the event (the request's); its `traceparent` is the one the receiver gets. Undefined when off.
 */
export function attemptSpan(delivery: ClaimedDelivery): SpanHandle | undefined {
  return startSpan(
    'webhook.attempt',
    'client',
    { traceId: delivery.traceId, spanId: delivery.parentSpanId, sampled: delivery.traceFlags === '01' },
    {
      'http.request.method': 'POST',
      'server.address': hostOf(delivery.url),
      'svc.webhook.delivery_id': delivery.id,
      'svc.webhook.endpoint_id': delivery.endpointId,
      'svc.event.id': delivery.eventId,
      'svc.event.type': delivery.eventType,
    },
  );
}

/** Ends the span with the attempt's outcome: an error status unless the receiver answered 2xx. */
export function endAttemptSpan(span: SpanHandle | undefined, outcome: AttemptOutcome): void {
  span?.end(
    {
      'http.response.status_code': outcome.statusCode ?? undefined,
      'error.type': outcome.errorClass ?? undefined,
    },
    outcome.errorClass === null ? undefined : (outcome.errorMessage ?? outcome.errorClass),
  );
}

/** The receiver's host only: a URL's path and query may hold a token. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
