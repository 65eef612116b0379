import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './service-metrics.ts';

export interface MetricsListener {
  /** `http://host:port` the listener answers on (the port chosen when 0 was asked). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The internal listener (`SVC_METRICS_PORT` on `SVC_METRICS_HOST`): a plain HTTP server apart from the
 * public app, so scrapes and probes neither pass its hooks (authentication, rate limits) nor show on its
 * port. `GET /metrics` is the Prometheus text; `/healthz` and `/readyz` are answered by the app's own
 * health routes (core/ops/health.ts), so both ports always agree.
 */
export async function startMetricsListener(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  { host, port }: { host: string; port: number },
): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    answer(app, metrics, request).then(
      ({ status, type, body }) => {
        // One request per connection: a scrape every few seconds gains nothing from keep-alive, and a client
        // reusing a connection the server just timed out gets ECONNRESET.
        response.writeHead(status, {
          'content-type': type,
          'cache-control': 'no-store',
          connection: 'close',
        });
        response.end(body);
      },
      (error: unknown) => {
        app.log.error({ err: error }, 'metrics listener');
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end('internal error\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Answer {
  status: number;
  type: string;
  body: string;
}

async function answer(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  request: http.IncomingMessage,
): Promise<Answer> {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return { status: 405, type: 'text/plain', body: 'GET only\n' };
  }
  if (path === '/metrics') {
    return { status: 200, type: metrics.registry.contentType, body: await metrics.render() };
  }
  if (path === '/healthz' || path === '/readyz') {
    const probe = await app.inject({ method: 'GET', url: path });
    return { status: probe.statusCode, type: 'application/json', body: probe.body };
  }
  return { status: 404, type: 'text/plain', body: 'not found: /metrics, /healthz, /readyz\n' };
}
