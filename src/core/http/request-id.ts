import { newId } from '../ids.ts';
import { randomHex } from '../random.ts';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keep a caller's X-Request-Id when it is sane, else mint `req_...` at `now`. */
export function requestIdFrom(header: string | string[] | undefined, now: number): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && ACCEPTABLE_REQUEST_ID.test(value) ? value : newId('request', now);
}

export interface TraceContext {
  traceId: string;
  spanId: string;
  /** The caller's span, when a valid `traceparent` arrived. */
  parentSpanId: string | undefined;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** W3C Trace Context: continue the caller's trace, or start one. */
export function traceFrom(header: string | string[] | undefined): TraceContext {
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  const spanId = randomHex(8);
  if (match !== null) {
    const [, version, traceId = '', parent = '', flags = '00'] = match;
    const valid = version !== 'ff' && !/^0+$/.test(traceId) && !/^0+$/.test(parent);
    if (valid) {
      return { traceId, spanId, parentSpanId: parent, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
    }
  }
  return { traceId: randomHex(16), spanId, parentSpanId: undefined, sampled: false };
}

export function traceparentOf(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.sampled ? '01' : '00'}`;
}
