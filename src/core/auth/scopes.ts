/**
 * The closed list of scopes. A route names the one it needs; a key carries a set (or `*`).
 * `<module>:read` / `<module>:write` for each module, plus the platform scopes below.
 */
export const MODULE_NAMES = [
  'rooms',
  'presence',
  'chat',
  'auctions',
  'payments',
  'webhooks',
  'analytics',
  'sync',
] as const;
export type ModuleName = (typeof MODULE_NAMES)[number];

export const PLATFORM_SCOPES = {
  'keys:manage': 'Create and revoke API keys and product keys through the API.',
  'sessions:manage': 'Mint session tokens (POST /v1/runtime/connect) and revoke them.',
  'webhooks:manage': 'Create, change and delete webhook endpoints; redeliver.',
  'events:read': 'Read the tenant event log.',
  'events:write': 'Publish custom app.* events.',
  'mcp:unattended': 'Call tools that need human confirmation without a human (server automation).',
} as const;

export const ALL_SCOPES: readonly string[] = [
  '*',
  ...MODULE_NAMES.flatMap((m) => [`${m}:read`, `${m}:write`]),
  ...Object.keys(PLATFORM_SCOPES),
];

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/**
 * What a session token minted for a module may do: end users read and take part, they never administer.
 * Modules absent here give a session token no scope at all.
 */
const RUNTIME_SCOPES: Record<ModuleName, readonly string[]> = {
  rooms: ['rooms:read'],
  presence: ['presence:read', 'presence:write'],
  chat: ['chat:read', 'chat:write'],
  auctions: ['auctions:read', 'auctions:write'],
  payments: ['payments:read'],
  webhooks: [],
  analytics: ['analytics:write'],
  sync: ['sync:read', 'sync:write'],
};

export function runtimeScopesFor(modules: readonly string[]): string[] {
  return [...new Set(modules.flatMap((m) => RUNTIME_SCOPES[m as ModuleName] ?? []))].sort();
}
