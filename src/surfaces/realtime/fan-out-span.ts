import type { TenantEvent } from '../../core/events/types.ts';
import { type SpanHandle, startSpan, tracingOn } from '../../core/ops/tracing/spans.ts';

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** Carried on an `event` room message while tracing is on: the event's trace, across instances. */
export interface MessageTrace {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

/** The event's trace for its room message; nothing while tracing is off. */
export function messageTrace(event: TenantEvent): { trace?: MessageTrace } {
  if (!tracingOn()) return {};
  return {
    trace: {
      traceId: event.trace.traceId,
      spanId: event.trace.spanId,
      sampled: event.trace.sampled === true,
    },
  };
}

/**
 * The span of one instance's fan-out of an event to its sockets in the room, a child of the span that
 * recorded the event (the request's). Undefined while tracing is off or when the message has no trace.
 */
export function fanOutSpan(trace: unknown, roomId: string, members: number): SpanHandle | undefined {
  if (!tracingOn() || typeof trace !== 'object' || trace === null) return undefined;
  const { traceId, spanId, sampled } = trace as Record<string, unknown>;
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId)) return undefined;
  return startSpan(
    'realtime.fan_out',
    'internal',
    {
      traceId,
      spanId: typeof spanId === 'string' && SPAN_ID.test(spanId) ? spanId : undefined,
      sampled: sampled === true,
    },
    { 'svc.realtime.room': roomId, 'svc.realtime.members': members },
  );
}
