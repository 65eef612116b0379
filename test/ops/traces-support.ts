import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import type { TestApp } from '../helper.ts';
import { testConfig } from '../helper.ts';
import { isolatedDatabase } from '../support/isolated-database.ts';

/** A span as the OTLP/HTTP JSON export carries it (ids as hex), with its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  service: string | undefined;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function plainValue(value: OtlpValue): unknown {
  return (
    value.stringValue ??
    value.boolValue ??
    value.doubleValue ??
    (value.intValue === undefined ? undefined : Number(value.intValue))
  );
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));
}

/** A local OTLP/HTTP collector: takes `POST /v1/traces` as JSON, keeps every span, answers 200. */
export async function startOtlpReceiver(): Promise<{
  url: string;
  spans: ReceivedSpan[];
  /** Requests that were not a JSON POST to /v1/traces. */
  refused: string[];
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = request.headers['content-type'] ?? '';
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !type.includes('application/json')) {
        refused.push(`${request.method} ${request.url} ${type}`);
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const resource of body.resourceSpans ?? []) {
        const service = attributesOf(resource.resource?.attributes)['service.name'];
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId === '' ? undefined : span.parentSpanId,
              name: span.name,
              kind: span.kind,
              service: typeof service === 'string' ? service : undefined,
              attributes: attributesOf(span.attributes),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A local webhook receiver that keeps each delivery's `traceparent`. */
export async function startTraceparentReceiver(): Promise<{
  url: string;
  traceparents: string[];
  close(): Promise<void>;
}> {
  const traceparents: string[] = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      traceparents.push(String(request.headers.traceparent));
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    traceparents,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface TracedInstance extends TestApp {
  runtime: Runtime;
  publicUrl: string;
}

/**
 * A runtime as `svc start` makes it, exporting to `tracesUrl`; `close()` flushes the spans. On a database
 * of its own: on the shared server database other test processes' workers could deliver its webhooks
 * (and its worker theirs), so a delivery's span would be exported by another process.
 */
export async function startTracedInstance(tracing: Config['tracing']): Promise<TracedInstance> {
  const config = testConfig({ tracing });
  const { db, close: closeDatabase } = await isolatedDatabase('traces');
  const runtime = await createRuntime(config, { db, workers: true });
  await runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const address = runtime.app.server.address() as AddressInfo;
  return {
    app: runtime.app,
    db,
    config,
    runtime,
    publicUrl: `http://127.0.0.1:${address.port}`,
    async close() {
      await runtime.close();
      await closeDatabase();
    },
  };
}

/** The tracing settings for a local receiver, as the OTEL_* defaults give them. */
export function tracingTo(url: string): NonNullable<Config['tracing']> {
  return {
    url,
    headers: {},
    resource: { 'service.name': 'svc-traces-test' },
    sampler: 'parentbased_always_on',
    ratio: 1,
  };
}

/** A fresh W3C `traceparent` of a caller's span: `flags` 01 sampled, 00 not. */
export function callerTraceparent(flags: '00' | '01'): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-${flags}`, traceId, spanId };
}
