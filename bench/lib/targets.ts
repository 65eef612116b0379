import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/core/db/database.ts';
import { newKeyEntry } from '../../src/core/secrets/keys.ts';
import { createRuntime } from '../../src/runtime.ts';

/** Something listening on loopback that a load run can aim at. */
export interface Target {
  name: string;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface ServiceTarget extends Target {
  app: FastifyInstance;
  db: Database;
  config: Config;
}

function baseUrlOf(server: http.Server): string {
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * The service in this process, built the way `svc start` builds it, on a random loopback port.
 * Production settings by default; `env` overrides them as variables would (e.g. DATABASE_URL).
 * Without DATABASE_URL the database is an in-memory PGlite, so a run leaves nothing behind. Production
 * requires an encryption key: a fresh one per run unless `env` gives SVC_ENCRYPTION_KEY (give the same
 * one to every run on one PostgreSQL database).
 */
export async function startService(env: Record<string, string | undefined> = {}): Promise<ServiceTarget> {
  const config = loadConfig({
    SVC_ENV: 'production',
    LOG_LEVEL: 'warn',
    SVC_ENCRYPTION_KEY: newKeyEntry(Date.now()),
    ...env,
    HOST: '127.0.0.1',
    PORT: '0',
  });
  const runtime = await createRuntime(config, { inMemory: config.databaseUrl === undefined });
  await runtime.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    name: 'svc',
    baseUrl: baseUrlOf(runtime.app.server),
    app: runtime.app,
    db: runtime.db,
    config,
    close: () => runtime.close(),
  };
}

/** The baseline: a bare `node:http` server; `respond` answers every request. */
export async function startBareServer(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  name = 'node:http',
): Promise<Target> {
  const server = http.createServer(respond);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    baseUrl: baseUrlOf(server),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/** A responder that answers every request with the same JSON body, as the service would send it. */
export function jsonResponder(
  body: unknown,
  status = 200,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const payload = Buffer.from(JSON.stringify(body));
  return (req, res) => {
    // Drain the request so keep-alive connections stay usable.
    req.resume();
    req.on('end', () => {
      res.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': payload.length,
      });
      res.end(payload);
    });
  };
}
