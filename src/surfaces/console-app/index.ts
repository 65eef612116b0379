import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import { devIssuerUrl, devOidcRoutes } from '../../core/auth/dev-oidc.ts';
import type { Identity } from '../../core/auth/identity.ts';
import type { Clock } from '../../core/clock.ts';
import { consoleStatic } from './static.ts';

const ConsoleSignIn = Type.Object(
  {
    issuer: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description:
        'The OpenID Connect issuer the console signs in with (its discovery document is at ' +
        '`<issuer>/.well-known/openid-configuration`); null: no provider is configured',
    }),
    clientId: Type.String({ description: "The console's client id at that provider (a public client)" }),
    scope: Type.String({ description: 'The scopes the console asks for' }),
    development: Type.Boolean({
      description: "True when the issuer is this service's built-in development provider",
    }),
  },
  {
    title: 'ConsoleSignIn',
    description: 'How the web console signs in: authorization code + PKCE at this OpenID Connect provider',
  },
);

/**
 * The web console: its files at `/console`, how it signs in (`/api/auth/console-config`), and in
 * development the provider it signs in with (core/auth/dev-oidc.ts). docs/console.md.
 */
export async function consoleApp(
  app: FastifyInstance,
  { config, clock, identity }: { config: Config; clock: Clock; identity: Identity },
) {
  const external = config.consoleOidc.issuer;
  const development =
    external === undefined && config.env !== 'production' && identity.hosted.devIssuer !== undefined;
  await app.register(consoleStatic, {
    ...(config.consoleDir === undefined ? {} : { dist: config.consoleDir }),
    providerOrigin: external === undefined ? undefined : new URL(external).origin,
  });
  await app.register(devOidcRoutes, { config, clock, devIssuer: identity.hosted.devIssuer });

  app.get(
    '/api/auth/console-config',
    {
      schema: {
        operationId: 'getConsoleSignIn',
        summary: 'How the web console signs in (OpenID Connect issuer and client id); public',
        tags: ['identity'],
        response: { 200: ConsoleSignIn },
      },
    },
    async (request) => ({
      issuer: external ?? (development ? devIssuerUrl(request) : null),
      clientId: config.consoleOidc.clientId,
      scope: 'openid email profile',
      development,
    }),
  );
}
