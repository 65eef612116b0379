import type { SecretEncryption } from '../../core/secrets/encryption.ts';
import { type EncryptedColumn, secretContext } from '../../core/secrets/stored-secrets.ts';

/**
 * Endpoint secrets are HMAC keys the worker must read back to sign, so they are stored encrypted (never
 * hashed) with the service's encryption. Rows from before encryption keep a plain `secret` until start-up
 * encrypts it (migration 0057); reads take either form.
 */
export const ENDPOINT_SECRET: EncryptedColumn = {
  table: 'webhook_endpoints',
  column: 'secret_encrypted',
  rowKey: ['tenant_id', 'id'],
  plainColumn: 'secret',
};

/** The secret that still signs during a rotation's grace period. */
export const PREVIOUS_ENDPOINT_SECRET: EncryptedColumn = {
  table: 'webhook_endpoints',
  column: 'previous_secret_encrypted',
  rowKey: ['tenant_id', 'id'],
  plainColumn: 'previous_secret',
};

/** One secret of an endpoint as its row holds it. */
export interface StoredSecret {
  column: EncryptedColumn;
  encrypted: string | null;
  plain: string | null;
}

export interface EndpointKey {
  tenantId: string;
  endpointId: string;
}

export function encryptSecret(
  encryption: SecretEncryption,
  column: EncryptedColumn,
  endpoint: EndpointKey,
  secret: string,
): string {
  return encryption.encrypt(secret, secretContext(column, [endpoint.tenantId, endpoint.endpointId]));
}

/** The secret, or undefined when the row holds none in this column. */
export function readSecret(
  encryption: SecretEncryption,
  stored: StoredSecret,
  endpoint: EndpointKey,
): string | undefined {
  if (stored.encrypted !== null) {
    return encryption.decrypt(
      stored.encrypted,
      secretContext(stored.column, [endpoint.tenantId, endpoint.endpointId]),
    );
  }
  return stored.plain ?? undefined;
}
