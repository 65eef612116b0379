import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { RemoteParent, SpanAttributes, SpanHandle, SpanSink } from './spans.ts';

/** The attributes with a value (OpenTelemetry warns about undefined ones). */
function attributesOf(values: SpanAttributes | undefined): Attributes | undefined {
  if (values === undefined) return undefined;
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) kept[key] = value;
  return kept;
}

function failed(span: Span, error: unknown): void {
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

export function traceparentOf(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00'}`;
}

/** `SpanSink` on an OpenTelemetry tracer: the active context is the AsyncLocalStorage the SDK registered. */
export class OtelSpanSink implements SpanSink {
  constructor(private readonly tracer: Tracer) {}

  child<T>(name: string, attributes: SpanAttributes | undefined, fn: () => Promise<T>): Promise<T> {
    const parent = context.active();
    if (trace.getSpan(parent) === undefined) return fn();
    return this.tracer.startActiveSpan(
      name,
      { attributes: attributesOf(attributes) },
      parent,
      async (span) => {
        try {
          return await fn();
        } catch (error) {
          failed(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  childSync<T>(name: string, attributes: SpanAttributes | undefined, fn: () => T): T {
    const parent = context.active();
    if (trace.getSpan(parent) === undefined) return fn();
    return this.tracer.startActiveSpan(name, { attributes: attributesOf(attributes) }, parent, (span) => {
      try {
        return fn();
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  }

  start(
    name: string,
    kind: 'client' | 'internal',
    parent: RemoteParent,
    attributes?: SpanAttributes,
  ): SpanHandle {
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: parent.spanId ?? randomBytes(8).toString('hex'),
      traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      isRemote: true,
    });
    const span = this.tracer.startSpan(
      name,
      { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: attributesOf(attributes) },
      remote,
    );
    const own = span.spanContext();
    return {
      spanId: own.spanId,
      traceparent: traceparentOf(own.traceId, own.spanId, own.traceFlags),
      end(more, error) {
        const extra = attributesOf(more);
        if (extra !== undefined) span.setAttributes(extra);
        if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        span.end();
      },
    };
  }

  detached<T>(fn: () => T): T {
    return context.with(ROOT_CONTEXT, fn);
  }
}
