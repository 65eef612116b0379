import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Whether an `If-None-Match` header names the entity tag (weak comparison, `*` included). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate.replace(/^W\//, '') === etag;
  });
}

/** Adds names to the `Vary` header the reply has so far. */
export function vary(reply: FastifyReply, ...names: string[]): void {
  const current = reply.getHeader('vary');
  const known = typeof current === 'string' && current !== '' ? current.split(/\s*,\s*/) : [];
  for (const name of names) if (!known.some((k) => k.toLowerCase() === name.toLowerCase())) known.push(name);
  reply.header('vary', known.join(', '));
}

/**
 * A cacheable GET answer: a strong `ETag` from the body's bytes, `Cache-Control`, and 304 with no body
 * when the client's `If-None-Match` names it. `varyOn`: the request headers the answer depends on.
 */
export function cacheable<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  body: T,
  options: { maxAgeSeconds: number; varyOn: readonly string[] },
): T | FastifyReply {
  const etag = `"${hash('sha256', JSON.stringify(body), 'base64url').slice(0, 32)}"`;
  reply.header('etag', etag).header('cache-control', `public, max-age=${options.maxAgeSeconds}`);
  vary(reply, ...options.varyOn);
  const ifNoneMatch = request.headers['if-none-match'];
  if (matches(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, etag)) {
    return reply.code(304).send();
  }
  return body;
}
