import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { elapsedSince } from '../../http/arrival.ts';
import type { HistogramSeries, SeriesHistogram } from './series-histogram.ts';

/** Status classes by `status / 100 - 1`; a status outside 100-599 is `other` (the last slot). */
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'other'] as const;

/**
 * Times every request into `svc_http_request_duration_seconds` by method, route template and status
 * class, from its arrival (the server's requests are stamped, http/arrival.ts) to its answer going out
 * (the last `onSend` hook: for a streamed body, when the stream starts). The route is Fastify's template
 * (`/v1/rooms/:roomId`), never the path, and a path no route matches is `unmatched`: a scanner's random
 * paths add no series. Methods outside Fastify's own set are `other` for the same reason.
 *
 * Each route keeps its series by method and status class, so a request costs one map read, one array read
 * and one observation (see SeriesHistogram). A route's template is taken when the route registers (a route
 * hook of each route), so a request builds no `routeOptions` to learn it. `onSend`, not `onResponse`:
 * Fastify adds and removes two listeners on every response of a route with an `onResponse` hook.
 */
export function installHttpMetrics(app: FastifyInstance, duration: SeriesHistogram): void {
  const known = new Set(app.supportedMethods);
  const timerOf = (route: string) => {
    const byMethod = new Map<string, (HistogramSeries | undefined)[]>();
    return (request: FastifyRequest, reply: FastifyReply): void => {
      const method = known.has(request.method) ? request.method : 'other';
      let slots = byMethod.get(method);
      if (slots === undefined) {
        slots = [];
        byMethod.set(method, slots);
      }
      const status = Math.floor(reply.statusCode / 100) - 1;
      const slot = status >= 0 && status < 5 ? status : 5;
      let series = slots[slot];
      if (series === undefined) {
        series = duration.series({ method, route, status_class: STATUS_CLASSES[slot] as string });
        slots[slot] = series;
      }
      series.observe(elapsedSince(request.raw) / 1000);
    };
  };
  app.addHook('onRoute', (route) => {
    const observe = timerOf(route.url);
    const timed: onSendHookHandler = (request, reply, payload, done) => {
      observe(request, reply);
      done(null, payload);
    };
    // Last, so the status is the one that goes out.
    const own = route.onSend;
    route.onSend = own === undefined ? [timed] : [...(Array.isArray(own) ? own : [own]), timed];
  });
  const unmatched = timerOf('unmatched');
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.is404) unmatched(request, reply);
    done(null, payload);
  });
}
