import { useSignal } from '@preact/signals';
import type { components } from '@svc/client';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { ConfirmButton, EmptyState, ErrorNotice, Loading, Page, Table, Time } from '../../lib/ui.tsx';
import { ProductKeyForm } from './product-key-form.tsx';
import { tenantParams } from './shared.ts';

type ProductKey = components['schemas']['ProductKey'];

async function allProductKeys(): Promise<ProductKey[]> {
  const keys: ProductKey[] = [];
  for await (const key of api.paginate('/api/console/tenants/{tenantId}/product-keys', {
    params: { ...tenantParams(), query: { limit: 100 } },
  })) {
    keys.push(key);
  }
  return keys;
}

const keyPath = (productKeyId: string) => ({ path: { ...tenantParams().path, productKeyId } });

function ProductKeyRow(props: { productKey: ProductKey; onChanged: () => Promise<void> }) {
  const key = props.productKey;
  const editing = useSignal(false);
  const revoked = key.revokedAt !== null;
  return (
    <tr>
      <td>{key.name}</td>
      <td>
        <code class="tenant-break">{key.key}</code>
      </td>
      <td>
        {editing.value ? (
          <ProductKeyForm
            mode="edit"
            idPrefix={`pk-${key.id}`}
            initial={key}
            onSubmit={async (input) => {
              await api.PATCH('/api/console/tenants/{tenantId}/product-keys/{productKeyId}', {
                params: keyPath(key.id),
                body: input,
              });
              editing.value = false;
              await props.onChanged();
            }}
            onCancel={() => {
              editing.value = false;
            }}
          />
        ) : key.allowedOrigins.length === 0 ? (
          'any origin'
        ) : (
          <ul class="tenant-plain">
            {key.allowedOrigins.map((origin) => (
              <li key={origin}>{origin}</li>
            ))}
          </ul>
        )}
      </td>
      <td>{key.rateLimitPerMinute}/min</td>
      <td>
        <Time value={key.createdAt} />
      </td>
      <td>{revoked ? 'Revoked' : 'Active'}</td>
      <td>
        {revoked || editing.value ? null : (
          <span class="tenant-actions">
            <button
              type="button"
              class="secondary"
              onClick={() => {
                editing.value = true;
              }}
            >
              Edit {key.name}
            </button>
            <ConfirmButton
              label={`Revoke ${key.name}`}
              confirm={`Revoke the product key "${key.name}"? Apps and pages using it stop working; this cannot be undone.`}
              onConfirm={async () => {
                await api.DELETE('/api/console/tenants/{tenantId}/product-keys/{productKeyId}', {
                  params: keyPath(key.id),
                });
                await props.onChanged();
              }}
            />
          </span>
        )}
      </td>
    </tr>
  );
}

/** Product keys: publishable keys for browsers and apps, limited to the origins listed on each. */
export function ProductKeysPage() {
  const keys = useLoad(allProductKeys, []);
  const list = keys.data.value;
  return (
    <Page title="Product keys">
      <p class="hint">
        Publishable keys (<code>pk_…</code>) for the public surface, sent as <code>X-SVC-Product-Key</code>{' '}
        from browsers and apps. A browser may use one only from the origins listed on it.
      </p>
      {keys.error.value === undefined ? null : <ErrorNotice error={keys.error.value} />}
      {list === undefined ? (
        keys.loading.value ? (
          <Loading what="product keys" />
        ) : null
      ) : list.length === 0 ? (
        <EmptyState title="No product keys yet.">
          <p>Create one below and list the origins of your storefront, e.g. https://shop.example.com.</p>
        </EmptyState>
      ) : (
        <Table
          caption="Product keys"
          head={['Name', 'Key', 'Allowed origins', 'Rate limit', 'Created', 'Status', '']}
        >
          {list.map((key) => (
            <ProductKeyRow key={key.id} productKey={key} onChanged={keys.reload} />
          ))}
        </Table>
      )}
      <section aria-labelledby="pk-create-title" class="tenant-form">
        <h2 id="pk-create-title">Create a product key</h2>
        <ProductKeyForm
          mode="create"
          idPrefix="pk-new"
          onSubmit={async (input) => {
            await api.POST('/api/console/tenants/{tenantId}/product-keys', {
              params: tenantParams(),
              body: { ...input, name: input.name ?? '' },
            });
            await keys.reload();
          }}
        />
      </section>
    </Page>
  );
}
