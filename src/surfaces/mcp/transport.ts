import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { tenantPrincipal } from '../../core/auth/principal.ts';
import type { Services } from '../../core/context.ts';
import { InvalidRequest } from '../../core/http/errors.ts';
import { jsonProblem } from '../../core/http/json-safety.ts';
import type { ToolCallScope } from './call-tool.ts';
import { McpCaller } from './caller.ts';
import type { mcpExchange } from './exchange.ts';

const ANSWER_TYPES = 'application/json, text/event-stream';

/** Fastify's request as the web-standard Request the SDK serves, the body left unparsed for it. */
function webRequest(request: FastifyRequest, publicUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // Every answer is plain JSON, so a caller that accepts JSON (or sends no Accept, like the spec's
  // curl example) is served; the SDK insists on the Streamable HTTP pair.
  const accept = headers.get('accept');
  if (accept === null || /application\/json|application\/\*|\*\/\*/.test(accept)) {
    headers.set('accept', ANSWER_TYPES);
  }
  const body = typeof request.body === 'string' ? request.body : '';
  return new Request(new URL(request.url, publicUrl), { method: 'POST', headers, body });
}

function parsedJson(body: unknown): { parsedBody?: unknown } {
  if (typeof body !== 'string') return {};
  try {
    return { parsedBody: JSON.parse(body) as unknown };
  } catch {
    // The SDK answers the JSON-RPC parse error itself.
    return {};
  }
}

/**
 * `POST /mcp`, statelessly: every exchange gets a fresh SDK server for its caller, so any instance
 * answers any call. 2026-07-28 requests (per-request `_meta` envelope) go to the SDK's modern handler;
 * 2025-era ones (`initialize`, then plain requests) to a one-shot Streamable HTTP transport.
 */
export async function mcpTransportRoutes(app: FastifyInstance, services: Services) {
  // The SDK is loaded by the first MCP request (see exchange.ts).
  let exchange: Promise<ReturnType<typeof mcpExchange>> | undefined;
  const exchangeOnce = () => {
    exchange ??= import('./exchange.ts').then((loaded) => loaded.mcpExchange(app.log));
    return exchange;
  };
  app.addHook('onClose', async () => {
    if (exchange !== undefined) await (await exchange).close();
  });

  // The SDK parses the body, so its protocol errors (parse error, wrong media type) are JSON-RPC ones. A
  // message nested too deep, or holding text that cannot be stored, is refused first (400, like any body).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    let problem: ReturnType<typeof jsonProblem>;
    try {
      problem = jsonProblem(JSON.parse(text), '/body');
    } catch {
      problem = undefined;
    }
    if (problem !== undefined) {
      return done(
        new InvalidRequest(`invalid request: ${problem.field} ${problem.message}`, [problem]),
        undefined,
      );
    }
    done(null, text);
  });

  app.post(
    '/mcp',
    {
      config: { auth: { credentials: ['api_key', 'session'] } },
      schema: {
        operationId: 'mcp',
        summary: 'MCP (Model Context Protocol) over Streamable HTTP: one JSON-RPC 2.0 message per POST',
        description:
          'initialize, ping, tools/list, tools/call (2025-11-25) and server/discover (2026-07-28), statelessly. ' +
          'Tools are the tenant’s module actions; see /.well-known/mcp and docs/mcp.md.',
        tags: ['mcp'],
        response: {
          200: Type.Object(
            {},
            { title: 'McpResponse', additionalProperties: true, description: 'The JSON-RPC 2.0 response' },
          ),
          202: Type.Null({ description: 'A notification was accepted' }),
        },
      },
    },
    async (request, reply) => {
      const principal = tenantPrincipal(request.principal);
      const caller = new McpCaller(services, principal, principal.tenantId);
      const scope: ToolCallScope = { services, request, caller };
      const web = webRequest(request, services.config.publicUrl);
      const answer = await (await exchangeOnce()).answer(web, parsedJson(request.body), scope);
      return reply.send(answer);
    },
  );
}
