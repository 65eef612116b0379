import type { RetentionRule } from '../modules/manifest.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Core's bookkeeping tables (modules declare theirs in their manifests). */
export const CORE_RETENTION: readonly RetentionRule[] = [
  {
    name: 'credential_revocations',
    description:
      'Revoked API keys and session tokens, polled by every instance; once the credential expired (or an API key left every cache) the row voids nothing.',
    table: 'credential_revocations',
    timeColumn: 'expires_at',
    defaultAgeMs: HOUR_MS,
  },
  {
    name: 'issued_sessions',
    description:
      'Session tokens minted, so revoking by sessionId refuses ids never issued; an expired token needs no revocation.',
    table: 'issued_sessions',
    timeColumn: 'expires_at',
    defaultAgeMs: HOUR_MS,
  },
  {
    name: 'mcp_confirmations',
    description: 'One-time MCP confirmation tokens; an expired token is refused anyway.',
    table: 'mcp_confirmations',
    timeColumn: 'expires_at',
    defaultAgeMs: DAY_MS,
  },
  {
    name: 'idempotency_keys',
    description:
      'Stored first responses to Idempotency-Key requests; past 24 hours a key is no longer replayed.',
    table: 'idempotency_keys',
    timeColumn: 'created_at',
    defaultAgeMs: DAY_MS + HOUR_MS,
  },
  {
    name: 'events',
    description:
      'The tenant event log (GET /v1/events). Webhook deliveries keep their own copy of the body; events older than this answer 404.',
    table: 'events',
    timeColumn: 'created_at',
    defaultAgeMs: 30 * DAY_MS,
  },
];
