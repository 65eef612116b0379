import { type Env, integer, text } from './parse.ts';

/** The internal metrics listener (docs/operations.md, metrics). */
export interface MetricsConfig {
  /**
   * `SVC_METRICS_PORT` and `SVC_METRICS_HOST`: where `/metrics`, `/healthz` and `/readyz` are served apart
   * from the public port; undefined (no listener, no request timing) when the port is unset.
   */
  metrics: { port: number; host: string } | undefined;
}

/** Off unless SVC_METRICS_PORT is set; bound to loopback unless SVC_METRICS_HOST says otherwise. */
export function metricsConfig(env: Env): MetricsConfig {
  if (text(env, 'SVC_METRICS_PORT') === undefined) return { metrics: undefined };
  return {
    metrics: {
      port: integer(env, 'SVC_METRICS_PORT', 0, 0, 65535),
      host: text(env, 'SVC_METRICS_HOST') ?? '127.0.0.1',
    },
  };
}
