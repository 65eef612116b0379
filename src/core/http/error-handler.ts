import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Clock } from '../clock.ts';
import { newId } from '../ids.ts';
import { AppError, type ErrorDetail } from './errors.ts';

export interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

export function detailsFromValidation(
  issues: readonly AjvIssue[],
  context: string | undefined,
): ErrorDetail[] {
  return issues.map((issue) => {
    let field = `/${context ?? 'body'}${issue.instancePath ?? ''}`;
    const params = issue.params ?? {};
    if (issue.keyword === 'required' && typeof params.missingProperty === 'string') {
      field += `/${params.missingProperty}`;
    }
    if (issue.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      field += `/${params.additionalProperty}`;
      return { field, message: 'is not a known field', code: 'unknown_field' };
    }
    if (issue.keyword === 'required') return { field, message: 'is required', code: 'required' };
    return { field, message: issue.message ?? 'is invalid', code: issue.keyword ?? 'invalid' };
  });
}

/** Any thrown thing becomes one of the closed set of AppErrors. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fe = error as Partial<FastifyError> & { validation?: AjvIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation)) {
    const details = detailsFromValidation(fe.validation, fe.validationContext);
    const first = details[0];
    const summary = first === undefined ? 'request is invalid' : `${first.field} ${first.message}`;
    return new AppError('invalid_request', `invalid request: ${summary}`, { details });
  }
  switch (fe.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError(
        'invalid_request',
        'the URL is not valid: it holds a percent-encoding that is not UTF-8',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(
        'uri_too_long',
        'a path segment of the URL is longer than the server accepts (100 characters)',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'the body is empty but Content-Type says application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'Content-Length does not match the body');
  }
  if (error instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new AppError('invalid_request', `request body is not valid JSON: ${fe.message ?? ''}`.trim());
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 413) return new AppError('payload_too_large', 'request body is larger than the limit');
  if (status === 415) return new AppError('unsupported_media_type', 'unsupported Content-Type');
  if (status === 404) return new AppError('not_found', 'not found');
  if (status === 429) return new AppError('rate_limited', 'too many requests');
  if (status === 503) return new AppError('service_unavailable', 'service unavailable');
  if (status >= 400 && status < 500) return new AppError('invalid_request', fe.message ?? 'invalid request');
  return new AppError('internal_error', 'internal error', { cause: error });
}

export function errorBody(error: AppError, requestId: string) {
  return {
    error: error.code,
    message: error.message,
    requestId,
    ...(error.details === undefined ? {} : { details: error.details }),
  };
}

/**
 * Requests Node's HTTP parser refuses before any route runs (headers over the limit, a malformed request
 * line, a request that took too long to arrive) get the API's error body too, then the connection closes.
 */
export const clientErrorHandler =
  (clock: Clock) =>
  (error: Error & { code?: string }, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headers_too_large', 'the request headers are larger than the server accepts (16 KiB)')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('request_timeout', 'the request did not arrive in time')
          : new AppError('invalid_request', 'the request is not valid HTTP');
    const requestId = newId('request', clock.now());
    const body = JSON.stringify(errorBody(refusal, requestId));
    socket.end(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.status >= 500 && !error.expected)
    request.log.error({ err: error.cause ?? error }, 'request failed');
  else if (error.status >= 500) request.log.info({ code: error.code }, error.message);
  return reply
    .status(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, request.id));
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route, for the contract and tenant-isolation suites. */
    routeList: readonly { method: string; url: string }[];
  }
}

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Answers a request no route matched, when it is one it knows (a CORS preflight); else false. */
export type UnmatchedResponder = (request: FastifyRequest, reply: FastifyReply) => boolean;
const unmatchedResponders = new WeakMap<FastifyInstance, UnmatchedResponder[]>();

/**
 * Asks `responder` first about every request no route matches (before the 404/405 answer), so a
 * request kind no route declares (OPTIONS) costs the other requests nothing: no hook on every route.
 */
export function answerUnmatched(app: FastifyInstance, responder: UnmatchedResponder): void {
  const responders = unmatchedResponders.get(app);
  if (responders === undefined)
    throw new Error('answerUnmatched: installErrorHandling has not run on this app');
  responders.push(responder);
}

/**
 * One error body for every failure: thrown errors, validation, parser errors and unknown routes.
 * A path that exists under another method answers 405 with `Allow`.
 */
export function installErrorHandling(app: FastifyInstance): void {
  const knownPaths = FindMyWay();
  const routeList: { method: string; url: string }[] = [];
  app.decorate('routeList', routeList);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD') routeList.push({ method, url: route.url });
      if (METHODS.includes(method as HTTPMethod) && !knownPaths.hasRoute(method as HTTPMethod, route.url)) {
        knownPaths.on(method as HTTPMethod, route.url, () => {});
      }
    }
  });

  app.setErrorHandler((error, request, reply) => sendError(request, reply, toAppError(error)));

  const responders: UnmatchedResponder[] = [];
  unmatchedResponders.set(app, responders);
  app.setNotFoundHandler((request, reply) => {
    for (const responder of responders) if (responder(request, reply)) return;
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && knownPaths.find(m, path) !== null);
    if (allowed.length > 0 && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      return sendError(
        request,
        reply,
        new AppError('method_not_allowed', `${request.method} is not allowed on ${path}`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    return sendError(request, reply, new AppError('not_found', `no route ${request.method} ${path}`));
  });
}
