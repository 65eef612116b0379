import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tracingConfig } from '../../src/config/tracing.ts';
import { ConfigError } from '../../src/config.ts';
import { tracingOn } from '../../src/core/ops/tracing/spans.ts';
import { connectSession, createTestTenant } from '../factories.ts';
import { call } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import {
  callerTraceparent,
  startOtlpReceiver,
  startTracedInstance,
  startTraceparentReceiver,
} from './traces-support.ts';

/** Where @opentelemetry/api registers its globals (the tracer provider, the context manager). */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * What is registered there: a tracer provider, a context manager, a propagator. The API leaves its
 * `version` behind when a traced app of the same test process unregistered its globals on close.
 */
function registeredGlobals(): string[] {
  const globals = (globalThis as Record<symbol, object | undefined>)[OTEL_GLOBAL];
  return Object.keys(globals ?? {}).filter((key) => key !== 'version');
}

describe('traces: configuration', () => {
  test('off without an OTLP endpoint, or when the SDK or the traces exporter is switched off', () => {
    assert.equal(tracingConfig({}).tracing, undefined);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.equal(tracingConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
    assert.equal(tracingConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing, undefined);
  });

  test('the standard variables: endpoint, traces endpoint, headers, service name, sampler', () => {
    const base = tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing;
    assert.deepEqual(base, {
      url: 'http://collector:4318/v1/traces',
      headers: {},
      resource: { 'service.name': 'svc' },
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
    const own = tracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example/otlp/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc,x-scope=a',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-scope=b',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=ignored',
      OTEL_SERVICE_NAME: 'svc-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    assert.deepEqual(own, {
      url: 'https://tempo.example/otlp/v1/traces',
      headers: { authorization: 'Basic abc', 'x-scope': 'b' },
      resource: { 'deployment.environment': 'prod', 'service.name': 'svc-eu' },
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
  });

  test('values svc cannot honour stop the start', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    assert.throws(() => tracingConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), ConfigError);
    assert.throws(() => tracingConfig({ ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' }), ConfigError);
    assert.throws(() => tracingConfig({ ...endpoint, OTEL_TRACES_SAMPLER_ARG: '2' }), ConfigError);
    assert.throws(() => tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), ConfigError);
  });
});

describe('traces: off', () => {
  test('with no endpoint configured, nothing of OpenTelemetry is registered and nothing is exported', async () => {
    const otlp = await startOtlpReceiver();
    const hooks = await startTraceparentReceiver();
    // Only the Config counts: a variable in this process's environment is not read behind its back.
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = otlp.url;
    const s = await startTracedInstance(undefined);
    try {
      assert.equal(tracingOn(), false);
      const tenant = await createTestTenant(s);
      const key = { 'x-api-key': tenant.apiKey };
      const hook = await call(s.app, {
        method: 'POST',
        url: '/v1/webhooks',
        headers: key,
        payload: { url: hooks.url, secret: 'traces-test-secret-0123', eventTypes: ['room.created'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      await connectSession(s, tenant.apiKey, { modules: ['rooms'] });
      const caller = callerTraceparent('01');
      const res = await fetch(`${s.publicUrl}/v1/rooms`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json', traceparent: caller.header },
        body: JSON.stringify({ id: 'untraced-room' }),
      });
      assert.equal(res.status, 201, await res.text());
      await eventually('the webhook delivered', () => hooks.traceparents.length > 0);
      // The receiver still continues the caller's trace (the service's own W3C handling).
      assert.match(hooks.traceparents[0] ?? '', new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`));
    } finally {
      await s.close();
      delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      await hooks.close();
      await otlp.close();
    }
    assert.deepEqual(registeredGlobals(), []);
    assert.deepEqual(otlp.spans, []);
    assert.deepEqual(otlp.refused, []);
  });
});
