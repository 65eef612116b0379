import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFound } from '../../core/http/errors.ts';

/** Where `npm run build` writes the console (console/dist), found from the sources and from dist/ alike. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

const TYPES: ReadonlyMap<string, string> = new Map([
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
  ['.png', 'image/png'],
  ['.woff2', 'font/woff2'],
  ['.json', 'application/json; charset=utf-8'],
  ['.map', 'application/json; charset=utf-8'],
]);

/** Vite names every asset `<name>-<hash>.<ext>` in one flat folder: anything else is not one of them. */
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/;

/**
 * The console's page: scripts, styles and connections from this origin only (`'self'` covers the same
 * origin's WebSocket in current browsers; test/console/shell.spec.ts checks it), no framing, no inline
 * anything. An outside sign-in provider's origin is allowed to be fetched (discovery, token endpoint).
 */
export function consoleCsp(providerOrigin: string | undefined): string {
  const connect = providerOrigin === undefined ? "'self'" : `'self' ${providerOrigin}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>svc console: not built</title></head>
<body>
<main>
<h1>The console is not built</h1>
<p>This service serves the web console from <code>console/dist/</code>, which is missing. Build it with
<code>npm run build</code> (<code>npm ci</code> runs it too), then reload this page.</p>
</main>
</body>
</html>
`;

/**
 * `/console`: the single-page app from console/dist. Every path below it that is not an asset is a page
 * of the app, answered with index.html (never cached: a new build is picked up at once); hashed assets
 * are immutable for a year. None of these routes is part of the API document.
 */
export async function consoleStatic(
  app: FastifyInstance,
  options: { dist?: string; providerOrigin: string | undefined },
) {
  const dist = options.dist ?? CONSOLE_DIST;
  const csp = consoleCsp(options.providerOrigin);
  const hidden = { schema: { hide: true } };

  const page = async (_request: unknown, reply: FastifyReply) => {
    reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache');
    let html: Buffer;
    try {
      html = await fs.readFile(path.join(dist, 'index.html'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('content-security-policy', csp)
        .send(NOT_BUILT);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('referrer-policy', 'no-referrer')
      .send(html);
  };
  app.get('/console', hidden, page);
  app.get('/console/*', hidden, page);

  app.get<{ Params: { '*': string } }>('/console/assets/*', hidden, async (request, reply) => {
    const name = request.params['*'];
    const type = TYPES.get(path.extname(name));
    if (!ASSET_NAME.test(name) || type === undefined) throw new NotFound('console asset', name);
    let body: Buffer;
    try {
      body = await fs.readFile(path.join(dist, 'assets', name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new NotFound('console asset', name);
    }
    return reply
      .type(type)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(body);
  });
}
