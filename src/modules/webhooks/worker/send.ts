import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../../core/clock.ts';
import { type DestinationPolicy, urlProblem } from '../destinations.ts';
import type { AttemptErrorClass } from '../schema.ts';
import { DestinationRefused } from './lookup.ts';

export const EXCERPT_BYTES = 1024;
/** A receiver that answers with more than this is cut off once its status is known. */
const MAX_DRAIN_BYTES = 1024 * 1024;

export interface AttemptOutcome {
  statusCode: number | null;
  /** null = any 2xx: delivered. */
  errorClass: AttemptErrorClass | null;
  errorMessage: string | null;
  responseBodyExcerpt: string | null;
  durationMs: number;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  clock: Clock;
  policy: DestinationPolicy;
  agents: Agents;
  /** Aborting it (worker shutdown) ends the attempt as `interrupted`. */
  signal: AbortSignal;
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

function errorClassOf(error: unknown, signal: AbortSignal): AttemptErrorClass {
  if (error instanceof AttemptTimeout) return 'timeout';
  if (signal.aborted) return 'interrupted';
  if (error instanceof DestinationRefused) return 'connect';
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (/CERT|SSL|TLS|EPROTO|ERR_OSSL/.test(code)) return 'tls';
  return 'connect';
}

function messageOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const text = e.code !== undefined && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
  return text.slice(0, 500);
}

function outcomeOfStatus(
  status: number,
  location: string | undefined,
): Pick<AttemptOutcome, 'errorClass' | 'errorMessage'> {
  if (status >= 200 && status < 300) return { errorClass: null, errorMessage: null };
  if (status >= 300 && status < 400) {
    const target = location === undefined ? '' : ` to ${location.slice(0, 200)}`;
    return { errorClass: 'http', errorMessage: `HTTP ${status}: redirect${target} not followed` };
  }
  return { errorClass: 'http', errorMessage: `HTTP ${status}` };
}

/** One POST, no redirects, bounded by the timeout; never throws. */
export function sendAttempt(request: SendRequest): Promise<AttemptOutcome> {
  const started = request.clock.now();
  const finish = (fields: Omit<AttemptOutcome, 'durationMs'>): AttemptOutcome => ({
    ...fields,
    durationMs: Math.max(0, request.clock.now() - started),
  });
  const failed = (error: unknown) =>
    finish({
      statusCode: null,
      errorClass: errorClassOf(error, request.signal),
      errorMessage: messageOf(error),
      responseBodyExcerpt: null,
    });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
  const problem = urlProblem(request.policy, url);
  if (problem !== undefined) {
    return Promise.resolve(failed(new DestinationRefused(`destination refused: the URL ${problem}`)));
  }
  if (request.signal.aborted) return Promise.resolve(failed(new Error('worker stopping')));

  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    let status: number | null = null;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;

    const settle = (error: unknown | undefined) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      request.signal.removeEventListener('abort', onAbort);
      if (status === null) {
        resolve(failed(error ?? new Error('the connection closed without an answer')));
        return;
      }
      const excerpt = Buffer.concat(chunks)
        .subarray(0, EXCERPT_BYTES)
        .toString('utf8')
        .replaceAll('\u0000', '');
      resolve(
        finish({ statusCode: status, responseBodyExcerpt: excerpt, ...outcomeOfStatus(status, location) }),
      );
    };

    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? request.agents.https : request.agents.http;
    let req: http.ClientRequest;
    const timer = request.clock.setTimeout(() => {
      const error = new AttemptTimeout(request.timeoutMs);
      settle(error);
      req.destroy(error);
    }, request.timeoutMs);
    const onAbort = () => {
      const error = new Error('worker stopping');
      settle(error);
      req.destroy(error);
    };
    request.signal.addEventListener('abort', onAbort, { once: true });

    const open = (retry: boolean) => {
      const current = transport.request(url, { method: 'POST', headers: request.headers, agent });
      req = current;
      current.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver closed just as we reused it: try once on a fresh connection.
        if (retry && !settled && status === null && current.reusedSocket && error.code === 'ECONNRESET') {
          open(false);
          return;
        }
        settle(error);
      });
      current.on('response', (res) => {
        status = res.statusCode ?? 0;
        const header = res.headers.location;
        location = Array.isArray(header) ? header[0] : header;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (kept < EXCERPT_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          if (received > MAX_DRAIN_BYTES) {
            settle(undefined);
            current.destroy();
          }
        });
        res.on('end', () => settle(undefined));
        res.on('error', () => settle(undefined));
        res.on('close', () => settle(undefined));
      });
      current.end(request.body);
    };
    open(true);
  });
}
