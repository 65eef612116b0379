import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { roomsModule } from '../../src/modules/rooms/manifest.ts';
import type { TestApp } from '../helper.ts';

/** The app on a real port: the SDK client talks HTTP, as an MCP client in the field does. */
export async function mcpUrl(t: TestApp): Promise<URL> {
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return new URL('/mcp', address);
}

export type Era = 'legacy' | 'modern';

export interface ClientOptions {
  /** `legacy`: the 2025-11-25 initialize handshake (the SDK's default); `modern`: 2026-07-28. */
  era?: Era;
  /** Declare elicitation and answer every confirmation question with this. */
  answer?: { action: 'accept' | 'decline' | 'cancel'; approve?: boolean };
  /** Each question the client was asked, in order. */
  questions?: string[];
}

/** An SDK `Client` connected over Streamable HTTP with `token` as its Bearer credential. */
export async function connect(url: URL, token: string, options: ClientOptions = {}): Promise<Client> {
  const answer = options.answer;
  const client = new Client(
    { name: 'svc-tests', version: '1.0.0' },
    {
      ...(answer === undefined ? {} : { capabilities: { elicitation: { form: {} } } }),
      ...(options.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  if (answer !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      options.questions?.push(request.params.message);
      return answer.action === 'accept'
        ? { action: 'accept', content: { approve: answer.approve ?? true } }
        : { action: answer.action };
    });
  }
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * The TypeScript SDK's v1 client (`@modelcontextprotocol/sdk` 1.x), the one most MCP clients and the
 * Inspector are built on. It validates every `structuredContent` against the tool's `outputSchema` once it
 * has listed tools, error results included.
 */
export async function connectV1(url: URL, token: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'svc-tests-v1', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransportV1(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

export interface ToolError {
  error: string;
  message: string;
  details?: { field: string; message: string; code?: string }[];
  [key: string]: unknown;
}

/**
 * The error an `isError` result carries: its one text block, the error body as JSON. It has no
 * `structuredContent`, which a validating client would check against the tool's output schema.
 */
export function toolError(answer: object): ToolError {
  // The v1 client types its answer as a union with the 2024-10-07 `toolResult` shape.
  const result: { isError?: unknown; content?: unknown; structuredContent?: unknown } = answer;
  assert.equal(result.isError, true, 'an isError result');
  assert.equal(result.structuredContent, undefined, 'an error result carries no structuredContent');
  const blocks = result.content as { type: string; text?: string }[];
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0]?.type, 'text');
  return JSON.parse(blocks[0]?.text ?? 'null') as ToolError;
}

export async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((t) => t.name).sort();
}

/** A JSON-RPC POST with only the headers the spec shows: the credential and Content-Type. */
export async function rawRpc(
  url: URL,
  token: string | undefined,
  body: unknown,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      'content-type': 'application/json',
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? {} : JSON.parse(text) };
}

/** The rooms module's tools; other modules come and go, so tests about rooms look at these. */
export const ROOM_TOOLS = roomsModule.actions.map((a) => a.name).sort();

export async function roomToolNames(client: Client): Promise<string[]> {
  return (await toolNames(client)).filter((name) => ROOM_TOOLS.includes(name));
}
