/** Who the MCP server says it is, in `initialize`, `server/discover` and `/.well-known/mcp` alike. */
export const SERVER_INFO = {
  name: 'svc',
  title: 'svc runtime (MCP private preview)',
  version: '0.1.0',
} as const;

export const SERVER_DESCRIPTION =
  'The actions of the modules your tenant has enabled, as tools: filtered by workspace type, module ' +
  'enablement, credential scope and the tenant’s human-confirmation policy.';

export const SERVER_INSTRUCTIONS =
  'Tools act on one tenant of the svc runtime, the one your credential belongs to. A tool that answers ' +
  'confirmation_required did not run: ask the user, and repeat the call with the token only if they approve.';

/** The stateless 2026-07-28 revision first, then the 2025-era revisions served through `initialize`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** Asks the SDK, loading it (it is not loaded at start: see exchange.ts). */
export async function protocolVersions(): Promise<string[]> {
  const { SUPPORTED_PROTOCOL_VERSIONS } = await import('@modelcontextprotocol/server');
  return [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];
}
