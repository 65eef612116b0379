import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { Histogram } from 'prom-client';

type RequestDuration = Histogram<'method' | 'route' | 'status_class'>;
type Observer = ReturnType<RequestDuration['labels']>;

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * Times every request into `svc_http_request_duration_seconds` by method, route template and status
 * class. The route is Fastify's template (`/v1/rooms/:roomId`), never the path, and a path no route
 * matches is `unmatched`: a scanner's random paths add no series. Methods outside Fastify's own set are
 * `other` for the same reason. The labelled child of each combination is kept, so a request costs one
 * map read and one observation. A route's template is taken when the route registers (a route hook of
 * each route), so a request builds no `routeOptions` to learn it; the global hook times only the requests
 * no route matched.
 */
export function installHttpMetrics(app: FastifyInstance, duration: RequestDuration): void {
  const children = new Map<string, Observer>();
  const known = new Set(app.supportedMethods);
  const observe = (request: FastifyRequest, reply: FastifyReply, route: string): void => {
    const method = known.has(request.method) ? request.method : 'other';
    const statusClass = STATUS_CLASSES[Math.floor(reply.statusCode / 100) - 1] ?? 'other';
    const key = `${method} ${statusClass} ${route}`;
    let child = children.get(key);
    if (child === undefined) {
      child = duration.labels({ method, route, status_class: statusClass });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
  };
  app.addHook('onRoute', (route) => {
    const url = route.url;
    const timed: onResponseHookHandler = (request, reply, done) => {
      observe(request, reply, url);
      done();
    };
    const own = route.onResponse;
    route.onResponse = own === undefined ? [timed] : [timed, ...(Array.isArray(own) ? own : [own])];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(request, reply, 'unmatched');
    done();
  });
}
