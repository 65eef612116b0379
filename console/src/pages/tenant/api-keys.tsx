import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { ConfirmButton, EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { CreateApiKeyForm, type CreatedKey, SecretOnce } from './api-key-create.tsx';
import { tenantParams } from './shared.ts';

type ApiKey = components['schemas']['ApiKey'];

function statusOf(key: ApiKey): string {
  if (key.revokedAt !== null) return 'Revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) return 'Expired';
  return 'Active';
}

/** Every API key of the tenant (its pages walked), newest last as the service lists them. */
async function allKeys(): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  for await (const key of api.paginate('/api/console/tenants/{tenantId}/api-keys', {
    params: { ...tenantParams(), query: { limit: 100 } },
  })) {
    keys.push(key);
  }
  return keys;
}

/** API keys: list, create with scopes and expiry (the secret shown once), revoke. */
export function ApiKeysPage() {
  const keys = useLoad(allKeys, []);
  const created = useSignal<CreatedKey | undefined>(undefined);
  const list = keys.data.value;
  return (
    <Page title="API keys">
      <p class="hint">
        Server-side credentials of this tenant, sent as <code>Authorization: Bearer &lt;key&gt;</code>. Keep
        them out of browsers and apps: those use product keys or session tokens.
      </p>
      {created.value === undefined ? null : (
        <SecretOnce
          created={created.value}
          onDone={() => {
            created.value = undefined;
          }}
        />
      )}
      {keys.error.value === undefined ? null : <ErrorNotice error={keys.error.value} />}
      {list === undefined ? (
        keys.loading.value ? (
          <Loading what="API keys" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No API keys yet.">
          <p>Create one below for your backend: pick only the scopes it needs.</p>
        </EmptyState>
      ) : (
        <Table
          caption="API keys"
          head={['Name', 'Prefix', 'Scopes', 'Created', 'Last used', 'Expires', 'Status', '']}
        >
          {list.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>{key.scopes.join(', ')}</td>
              <td>
                <Time value={key.createdAt} />
              </td>
              <td>{key.lastUsedAt === null ? 'never' : <Time value={key.lastUsedAt} />}</td>
              <td>{key.expiresAt === null ? 'never' : <Time value={key.expiresAt} />}</td>
              <td>{statusOf(key)}</td>
              <td>
                {key.revokedAt !== null ? null : (
                  <ConfirmButton
                    label={`Revoke ${key.name}`}
                    confirm={`Revoke the API key "${key.name}"? Every request with it is refused within a second; this cannot be undone.`}
                    onConfirm={async () => {
                      await api.DELETE('/api/console/tenants/{tenantId}/api-keys/{keyId}', {
                        params: { path: { ...tenantParams().path, keyId: key.id } },
                      });
                      await keys.reload();
                    }}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <CreateApiKeyForm
        onCreated={(key) => {
          created.value = key;
          void keys.reload();
        }}
      />
    </Page>
  );
}
