import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, TraceFlags, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
// Static: a dynamic import of these CommonJS packages has no named exports inside the bundle.
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TracingSettings } from '../../../config/tracing.ts';
import { traceFrom } from '../../http/request-id.ts';
import { OtelSpanSink } from './sink.ts';
import { setSpanSink } from './spans.ts';
import type { Tracing } from './tracing.ts';

const TRACER = 'svc';

/** OTEL_TRACES_SAMPLER as a sampler; the `parentbased_*` ones follow the incoming `traceparent`'s flag. */
export function samplerOf(settings: TracingSettings): Sampler {
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(settings.ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * The request's `trace` (what events record as their trace metadata, see core/context.ts) becomes the
 * request span's context, so what an event causes later (a webhook attempt, a room's fan-out) joins it.
 */
function requestTrace(request: FastifyRequest): void {
  const span = request.opentelemetry().span;
  if (span === undefined || span === null) return;
  const own = span.spanContext();
  const incoming = traceFrom(request.headers.traceparent);
  request.traceContext = {
    traceId: own.traceId,
    spanId: own.spanId,
    parentSpanId: incoming.traceId === own.traceId ? incoming.parentSpanId : undefined,
    sampled: (own.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED,
  };
}

/**
 * Not traced: probes (a load balancer's health checks would be most of the traces) and WebSocket upgrades
 * (a request span would last as long as the socket; the fan-out has spans of its own).
 */
function untracedPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? url;
  return path === '/healthz' || path === '/readyz' || path === '/v1/realtime' || path.startsWith('/v1/sync/');
}

/**
 * The process's OpenTelemetry SDK: the tracer provider, the W3C propagator and the AsyncLocalStorage
 * context manager are registered globally, so one SDK serves every app of the process (tests run several);
 * it stops, and its globals are unregistered, when the last app using it has closed.
 */
let shared: { sdk: NodeSDK; processor: BatchSpanProcessor; users: number } | undefined;

/** Which of the database clients the service uses this run, whose statements get spans. */
export interface TracedClients {
  postgres: boolean;
  redis: boolean;
}

/**
 * The pg and ioredis instrumentations, applied to the modules the service itself imported: they patch
 * packages as `require` loads them, which never happens inside the bundle (dist/), so their patches are
 * applied here by hand, to the very module objects. Only under a span (`requireParentSpan`).
 */
async function instrumentClients(clients: TracedClients): Promise<void> {
  if (clients.postgres) {
    const { default: pg } = await import('pg');
    for (const module of new PgInstrumentation({ requireParentSpan: true }).getModuleDefinitions()) {
      if (module.name === 'pg') module.patch?.(pg);
      if (module.name === 'pg-pool') module.patch?.(pg.Pool);
    }
  }
  if (clients.redis) {
    const { default: Redis } = await import('ioredis');
    for (const module of new IORedisInstrumentation({ requireParentSpan: true }).getModuleDefinitions()) {
      if (module.name === 'ioredis') module.patch?.(Redis);
    }
  }
}

export async function startTracing(settings: TracingSettings, clients: TracedClients): Promise<Tracing> {
  if (shared === undefined) {
    const processor = new BatchSpanProcessor(
      new OTLPTraceExporter({ url: settings.url, headers: settings.headers }),
    );
    const sdk = new NodeSDK({
      resource: resources.resourceFromAttributes(settings.resource),
      autoDetectResources: false,
      sampler: samplerOf(settings),
      spanProcessors: [processor],
      // Traces only: no metric readers or log processors (the SDK would default both to OTLP).
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    await instrumentClients(clients);
    setSpanSink(new OtelSpanSink(trace.getTracer(TRACER)));
    shared = { sdk, processor, users: 0 };
  }
  const current = shared;
  current.users += 1;
  let closed = false;
  return {
    async install(app: FastifyInstance) {
      const otel = new FastifyOtelInstrumentation({
        instrumentHooks: false,
        ignorePaths: (route) => untracedPath(route.url ?? ''),
        requestHook: (span, request) => {
          span.updateName(`${request.method} ${request.routeOptions.url ?? 'unmatched'}`);
        },
      });
      await app.register(otel.plugin());
      app.addHook('onRequest', (request, _reply, done) => {
        requestTrace(request);
        done();
      });
      // What the app did is exported by the time it has closed (the runtime flushes again after it).
      app.addHook('onClose', () => current.processor.forceFlush());
    },
    flush: () => current.processor.forceFlush(),
    async close() {
      if (closed) return;
      closed = true;
      await current.processor.forceFlush();
      current.users -= 1;
      if (current.users > 0 || shared !== current) return;
      shared = undefined;
      setSpanSink(undefined);
      await current.sdk.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
