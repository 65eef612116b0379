import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * `/docs`: Swagger UI over this service's own OpenAPI document, every asset served from here (no CDN).
 * The assets are the Swagger UI build that `@fastify/swagger-ui` ships; only its files are used, read on
 * first request: registering that plugin loaded a static-file server, `glob` and `yaml` at every start
 * (about 150 ms of a restart) for a page few starts ever serve.
 */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['index.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'application/javascript; charset=utf-8'],
  ['oauth2-redirect.js', 'application/javascript; charset=utf-8'],
  ['oauth2-redirect.html', 'text/html; charset=utf-8'],
  ['favicon-16x16.png', 'image/png'],
  ['favicon-32x32.png', 'image/png'],
]);

/** Scripts and styles only from this origin; the UI shows images inline as data: URLs. */
const CSP =
  "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; " +
  "img-src 'self' data: validator.swagger.io; object-src 'none'; script-src 'self' ; " +
  "style-src 'self' https: 'unsafe-inline'; upgrade-insecure-requests";

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>svc API reference</title>
  <link rel="stylesheet" type="text/css" href="/docs/static/swagger-ui.css" />
  <link rel="stylesheet" type="text/css" href="/docs/static/index.css" />
  <link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png" sizes="32x32" />
  <link rel="icon" type="image/png" href="/docs/static/favicon-16x16.png" sizes="16x16" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/static/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="/docs/static/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script src="/docs/static/swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`;

/** Starts the UI on `/docs/json`; no call to the public validator badge. */
const UI_CONFIG = {
  url: '/docs/json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  layout: 'StandaloneLayout',
  oauth2RedirectUrl: '/docs/static/oauth2-redirect.html',
};

const INITIALIZER = `window.onload = function () {
  var config = ${JSON.stringify(UI_CONFIG)};
  config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset];
  config.plugins = [SwaggerUIBundle.plugins.DownloadUrl];
  window.ui = SwaggerUIBundle(config);
};
`;

/** The folder of Swagger UI's built files, found from wherever this code runs (sources or dist/). */
function assetFolder(): string {
  const entry = createRequire(import.meta.url).resolve('@fastify/swagger-ui');
  return path.join(path.dirname(entry), 'static');
}

export function registerApiReference(app: FastifyInstance, document: () => unknown): void {
  const cache = new Map<string, Promise<Buffer>>();
  const read = (name: string) => {
    let file = cache.get(name);
    if (file === undefined) {
      file = fs.readFile(path.join(assetFolder(), name));
      // A failed read is not kept: the next request tries again.
      file.catch(() => cache.delete(name));
      cache.set(name, file);
    }
    return file;
  };
  const hidden = { schema: { hide: true } };
  const page = async (_request: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE);
  app.get('/docs', hidden, page);
  app.get('/docs/', hidden, page);
  app.get('/docs/json', hidden, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document()),
  );
  app.get('/docs/static/swagger-initializer.js', hidden, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(INITIALIZER),
  );
  app.get<{ Params: { file: string } }>('/docs/static/:file', hidden, async (request, reply) => {
    // A Map: `/docs/static/constructor` is not a file (an object's inherited member was, and answered 500).
    const type = ASSETS.get(request.params.file);
    if (type === undefined) return reply.callNotFound();
    return reply
      .type(type)
      .header('cache-control', 'public, max-age=3600')
      .send(await read(request.params.file));
  });
}
