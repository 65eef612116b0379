import { ConfigError, type Env, oneOf, text } from './parse.ts';

/** The samplers OTEL_TRACES_SAMPLER names (the OpenTelemetry specification's list). */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export interface TracingSettings {
  /** Where spans are POSTed as OTLP/HTTP JSON: the traces endpoint itself, `.../v1/traces`. */
  url: string;
  /** Sent with every export (OTEL_EXPORTER_OTLP_TRACES_HEADERS or OTEL_EXPORTER_OTLP_HEADERS). */
  headers: Record<string, string>;
  /** Resource attributes: OTEL_RESOURCE_ATTRIBUTES, with `service.name` from OTEL_SERVICE_NAME (default svc). */
  resource: Record<string, string>;
  sampler: (typeof SAMPLERS)[number];
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the `traceidratio` samplers, 0 to 1 (default 1). */
  ratio: number;
}

/** OpenTelemetry traces (docs/operations.md, traces). */
export interface TracingConfig {
  /** Undefined (nothing of OpenTelemetry loaded) unless an OTLP endpoint is set. */
  tracing: TracingSettings | undefined;
}

/** `key=value,key=value`, values percent-decoded (the W3C Baggage form the OTEL_* lists use). */
function keyValues(env: Env, name: string): Record<string, string> {
  const raw = text(env, name);
  if (raw === undefined) return {};
  const pairs = raw.split(',').map((entry): [string, string] => {
    const at = entry.indexOf('=');
    const key = entry.slice(0, at).trim();
    if (at <= 0 || key === '') throw new ConfigError(name, 'a list of key=value pairs', raw);
    try {
      return [key, decodeURIComponent(entry.slice(at + 1).trim())];
    } catch {
      throw new ConfigError(name, 'percent-encoded values', raw);
    }
  });
  return Object.fromEntries(pairs);
}

function endpoint(env: Env, name: string): URL | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  try {
    const value = new URL(raw);
    if (value.protocol === 'http:' || value.protocol === 'https:') return value;
  } catch {}
  throw new ConfigError(name, 'an http(s) URL', raw);
}

/**
 * On when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) or OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces`
 * appended) is set, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export function tracingConfig(env: Env): TracingConfig {
  const traces = endpoint(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = endpoint(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const disabled =
    text(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true' || text(env, 'OTEL_TRACES_EXPORTER') === 'none';
  if (disabled || (traces === undefined && base === undefined)) return { tracing: undefined };
  const exporter = text(env, 'OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && exporter !== 'otlp') {
    throw new ConfigError('OTEL_TRACES_EXPORTER', 'otlp or none', exporter);
  }
  const protocol =
    text(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? text(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json') {
    throw new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json (the exporter svc ships)', protocol);
  }
  const url = traces?.href ?? `${base?.href.replace(/\/$/, '')}/v1/traces`;
  const ratioText = text(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1 || ratioText?.trim() === '') {
    throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', 'a ratio from 0 to 1', ratioText ?? '');
  }
  const headers = {
    ...keyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...keyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
  };
  const resource = keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES');
  resource['service.name'] = text(env, 'OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'svc';
  return {
    tracing: {
      url,
      headers,
      resource,
      sampler: oneOf(env, 'OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on'),
      ratio,
    },
  };
}
