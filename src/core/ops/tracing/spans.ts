/**
 * The service's own spans, as core and the modules ask for them. Nothing here loads OpenTelemetry: while
 * tracing is off (no OTLP endpoint) no sink is set, and each call is one check of `sink` before the work
 * runs as it would anyway. `startTracing` (sdk.ts, loaded only when tracing is on) sets the sink.
 */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** A W3C trace context that arrived from elsewhere: an event's trace metadata, a stored delivery's. */
export interface RemoteParent {
  traceId: string;
  /** The parent span; undefined (e.g. the event's row is gone): a span id is made up for the trace. */
  spanId: string | undefined;
  sampled: boolean;
}

/** A span started by `startSpan`, ended by its owner once. */
export interface SpanHandle {
  readonly spanId: string;
  /** This span as a `traceparent` header: what the next hop (a webhook receiver) continues. */
  readonly traceparent: string;
  /** `error`: the span's status is ERROR with that message. */
  end(attributes?: SpanAttributes, error?: string): void;
}

export interface SpanSink {
  /** `fn` inside a child span of the active one; `fn` alone when no span is active. */
  child<T>(name: string, attributes: SpanAttributes | undefined, fn: () => Promise<T>): Promise<T>;
  /** As `child`, for synchronous work. */
  childSync<T>(name: string, attributes: SpanAttributes | undefined, fn: () => T): T;
  /** A span whose parent is `parent` (kind: client for a call out, else internal). */
  start(
    name: string,
    kind: 'client' | 'internal',
    parent: RemoteParent,
    attributes?: SpanAttributes,
  ): SpanHandle;
  /** `fn` with no active span: what it starts (a worker's loop) does not join the caller's trace. */
  detached<T>(fn: () => T): T;
}

let sink: SpanSink | undefined;

/** Set by `startTracing`, cleared when tracing stops. */
export function setSpanSink(next: SpanSink | undefined): void {
  sink = next;
}

export function tracingOn(): boolean {
  return sink !== undefined;
}

/** `fn` in a child span of the request's (or other active) span; just `fn` while tracing is off. */
export function inSpan<T>(name: string, fn: () => Promise<T>, attributes?: SpanAttributes): Promise<T> {
  return sink === undefined ? fn() : sink.child(name, attributes, fn);
}

/** `inSpan` for synchronous work. */
export function inSpanSync<T>(name: string, fn: () => T, attributes?: SpanAttributes): T {
  return sink === undefined ? fn() : sink.childSync(name, attributes, fn);
}

/** A span continuing `parent`'s trace; undefined while tracing is off. */
export function startSpan(
  name: string,
  kind: 'client' | 'internal',
  parent: RemoteParent,
  attributes?: SpanAttributes,
): SpanHandle | undefined {
  return sink?.start(name, kind, parent, attributes);
}

/**
 * `fn` outside the caller's trace: for background work a request starts but does not own (a worker's
 * wake loop), whose later statements would otherwise join the request's trace.
 */
export function untraced<T>(fn: () => T): T {
  return sink === undefined ? fn() : sink.detached(fn);
}
