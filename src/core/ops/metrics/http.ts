import type { FastifyInstance } from 'fastify';
import type { Histogram } from 'prom-client';

type RequestDuration = Histogram<'method' | 'route' | 'status_class'>;
type Observer = ReturnType<RequestDuration['labels']>;

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * Times every request into `svc_http_request_duration_seconds` by method, route template and status
 * class. The route is Fastify's template (`/v1/rooms/:roomId`), never the path, and a path no route
 * matches is `unmatched`: a scanner's random paths add no series. Methods outside Fastify's own set are
 * `other` for the same reason. The labelled child of each combination is kept, so a request costs one
 * map read and one observation.
 */
export function installHttpMetrics(app: FastifyInstance, duration: RequestDuration): void {
  const children = new Map<string, Observer>();
  const known = new Set(app.supportedMethods);
  app.addHook('onResponse', (request, reply, done) => {
    const method = known.has(request.method) ? request.method : 'other';
    const route = request.routeOptions.url ?? 'unmatched';
    const statusClass = STATUS_CLASSES[Math.floor(reply.statusCode / 100) - 1] ?? 'other';
    const key = `${method} ${statusClass} ${route}`;
    let child = children.get(key);
    if (child === undefined) {
      child = duration.labels({ method, route, status_class: statusClass });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
}
