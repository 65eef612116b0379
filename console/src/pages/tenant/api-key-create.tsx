import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { TextField } from '../../lib/fields.tsx';
import { useLoad } from '../../lib/load.ts';
import { ErrorNotice, Loading } from '../../lib/ui.tsx';
import { fieldErrors, tenantParams } from './shared.ts';

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
}

/** The scopes a key may carry (`GET /api/console/scopes`), grouped as checkboxes by module. */
function ScopePicker(props: {
  chosen: string[];
  onChange: (scopes: string[]) => void;
  error: string | undefined;
}) {
  const scopes = useLoad(async () => {
    const { data } = await api.GET('/api/console/scopes', { params: { query: { limit: 100 } } });
    return data.data;
  }, []);
  const list = scopes.data.value;
  const toggle = (scope: string, on: boolean) =>
    props.onChange(on ? [...props.chosen, scope] : props.chosen.filter((s) => s !== scope));
  return (
    <fieldset
      class="tenant-scopes"
      aria-describedby={props.error === undefined ? undefined : 'key-scopes-error'}
    >
      <legend>Scopes</legend>
      {scopes.error.value === undefined ? null : <ErrorNotice error={scopes.error.value} />}
      {list === undefined ? (
        <Loading what="scopes" />
      ) : (
        <ul>
          {list.map((row) => {
            const id = `key-scope-${row.scope.replace(/[^a-z0-9]/gi, '-')}`;
            return (
              <li key={row.scope}>
                <input
                  type="checkbox"
                  id={id}
                  checked={props.chosen.includes(row.scope)}
                  onChange={(event) => toggle(row.scope, event.currentTarget.checked)}
                />{' '}
                <label for={id}>
                  <code>{row.scope}</code> <span class="hint">{row.description}</span>
                </label>
              </li>
            );
          })}
        </ul>
      )}
      {props.error === undefined ? null : (
        <small id="key-scopes-error" class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </fieldset>
  );
}

/** Creates an API key with a name, scopes and an optional expiry; the secret goes to `onCreated` only. */
export function CreateApiKeyForm(props: { onCreated: (key: CreatedKey) => void }) {
  const name = useSignal('');
  const scopes = useSignal<string[]>([]);
  const expires = useSignal('');
  const errors = useSignal<Record<string, string>>({});
  const failure = useSignal<unknown>(undefined);
  const busy = useSignal(false);
  return (
    <form
      class="tenant-form"
      aria-labelledby="key-create-title"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        failure.value = undefined;
        const expiry = expires.value === '' ? undefined : new Date(expires.value);
        if (expiry !== undefined && Number.isNaN(expiry.getTime())) {
          errors.value = { expiresAt: 'is not a date and time' };
          return;
        }
        busy.value = true;
        try {
          const { data } = await api.POST('/api/console/tenants/{tenantId}/api-keys', {
            params: tenantParams(),
            body: {
              name: name.value.trim(),
              scopes: scopes.value,
              ...(expiry === undefined ? {} : { expiresAt: expiry.toISOString() }),
            },
          });
          props.onCreated({ id: data.id, name: data.name, key: data.key });
          name.value = '';
          scopes.value = [];
          expires.value = '';
          errors.value = {};
        } catch (caught) {
          errors.value = fieldErrors(caught, '/body/');
          failure.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="key-create-title">Create an API key</h2>
      <TextField
        label="Name"
        id="key-name"
        hint="What uses it, e.g. backend or CI"
        error={errors.value.name}
        value={name}
      />
      <ScopePicker
        chosen={scopes.value}
        error={errors.value.scopes}
        onChange={(next) => {
          scopes.value = next;
        }}
      />
      <TextField
        label="Expires (optional)"
        id="key-expires"
        type="datetime-local"
        hint="Your local time; leave empty for a key that does not expire"
        error={errors.value.expiresAt}
        value={expires}
      />
      {failure.value === undefined ? null : <ErrorNotice error={failure.value} />}
      <button type="submit" disabled={busy.value}>
        Create API key
      </button>
    </form>
  );
}

/** The new key's secret, shown once, with a copy button; gone when dismissed or when the page is left. */
export function SecretOnce(props: { created: CreatedKey; onDone: () => void }) {
  const copied = useSignal<'yes' | 'failed' | undefined>(undefined);
  return (
    <section class="notice ok tenant-secret" aria-labelledby="key-secret-title">
      <h2 id="key-secret-title">API key “{props.created.name}” created</h2>
      <p>Copy the secret now: it is not shown again. A lost key is revoked and replaced.</p>
      <p>
        <label for="key-secret">Secret</label>{' '}
        <input id="key-secret" class="tenant-secret-value" readOnly value={props.created.key} />
      </p>
      <p>
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(props.created.key);
              copied.value = 'yes';
            } catch {
              copied.value = 'failed';
            }
          }}
        >
          Copy secret
        </button>{' '}
        <button type="button" class="secondary" onClick={props.onDone}>
          I have stored it
        </button>{' '}
        <span role="status">
          {copied.value === 'yes'
            ? 'Copied to the clipboard.'
            : copied.value === 'failed'
              ? 'The browser refused the clipboard: select the secret and copy it.'
              : ''}
        </span>
      </p>
    </section>
  );
}
