/**
 * Scopes a route or action names and a key carries (or `*`): each module declares its own in its
 * manifest (`<module>:read`, `<module>:write`, ...); these are the platform's.
 */
export const PLATFORM_SCOPES = {
  'keys:manage': 'Create and revoke API keys and product keys through the API.',
  'sessions:manage': 'Mint session tokens (POST /v1/runtime/connect) and revoke them.',
  'events:read': 'Read the tenant event log.',
  'events:write': 'Publish custom app.* events.',
  'mcp:unattended': 'Call tools that need human confirmation without a human (server automation).',
} as const;
