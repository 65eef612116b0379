import { signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from './lib/api.ts';
import { navigate, tenantRoute } from './lib/router.tsx';
import { EmptyState, ErrorNotice, Field, Loading, Page } from './lib/ui.tsx';

export interface TenantChoice {
  id: string;
  name: string;
  workspaceType: string;
  role: string;
}

/** The tenants the user belongs to (the switcher's list), loaded after sign-in and after a new one is made. */
export const tenants = signal<TenantChoice[] | undefined>(undefined);
export const tenantsError = signal<unknown>(undefined);

export async function loadTenants(): Promise<void> {
  try {
    const { data } = await api.GET('/api/console/tenants', { params: { query: { limit: 100 } } });
    tenants.value = data.data;
    tenantsError.value = undefined;
  } catch (error) {
    tenantsError.value = error;
  }
}

/** The header's tenant switcher: choosing one opens its overview. */
export function TenantSwitcher() {
  const list = tenants.value;
  const current = tenantRoute.value?.tenantId;
  if (list === undefined || list.length === 0) return null;
  return (
    <div class="topbar-tenant">
      <label for="tenant-switcher">Tenant</label>
      <select
        id="tenant-switcher"
        value={current ?? ''}
        onChange={(event) => {
          const id = event.currentTarget.value;
          if (id !== '') navigate(`/t/${encodeURIComponent(id)}/`);
        }}
      >
        {current === undefined ? <option value="">Choose a tenant…</option> : null}
        {list.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name} ({t.role})
          </option>
        ))}
      </select>
    </div>
  );
}

/** `/console`: the first tenant's overview, or, with none yet, the form that makes one. */
export function Landing() {
  const list = tenants.value;
  useEffect(() => {
    const first = list?.[0];
    if (first !== undefined) navigate(`/t/${encodeURIComponent(first.id)}/`, { replace: true });
  }, [list]);
  if (tenantsError.value !== undefined) {
    return (
      <Page title="Tenants">
        <ErrorNotice error={tenantsError.value} />
      </Page>
    );
  }
  if (list === undefined || list.length > 0) return <Loading what="your tenants" />;
  return (
    <Page title="Welcome">
      <EmptyState title="You are not a member of any tenant yet.">
        <p>Create one: you become its owner, with every module enabled. Or ask an owner to invite you.</p>
      </EmptyState>
      <CreateTenantForm />
    </Page>
  );
}

/** `/console/new-tenant`. */
export function NewTenantPage() {
  return (
    <Page title="New tenant">
      <CreateTenantForm />
    </Page>
  );
}

const WORKSPACE_TYPES = ['commerce', 'community', 'sandbox'] as const;

function CreateTenantForm() {
  const name = useSignal('');
  const workspaceType = useSignal<(typeof WORKSPACE_TYPES)[number]>('sandbox');
  const busy = useSignal(false);
  const error = useSignal<unknown>(undefined);
  return (
    <form
      class="shell-create-tenant"
      onSubmit={async (event) => {
        event.preventDefault();
        busy.value = true;
        error.value = undefined;
        try {
          const { data } = await api.POST('/api/console/tenants', {
            body: { name: name.value.trim(), workspaceType: workspaceType.value },
          });
          await loadTenants();
          navigate(`/t/${encodeURIComponent(data.id)}/`);
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2>Create a tenant</h2>
      <Field label="Name" id="tenant-name" hint="Shown to your team, e.g. your company or app.">
        <input
          id="tenant-name"
          required
          maxLength={200}
          value={name.value}
          aria-describedby="tenant-name-hint"
          onInput={(event) => {
            name.value = event.currentTarget.value;
          }}
        />
      </Field>
      <Field label="Workspace type" id="tenant-workspace-type">
        <select
          id="tenant-workspace-type"
          value={workspaceType.value}
          onChange={(event) => {
            workspaceType.value = event.currentTarget.value as (typeof WORKSPACE_TYPES)[number];
          }}
        >
          {WORKSPACE_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </Field>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      <button type="submit" disabled={busy.value}>
        Create tenant
      </button>
    </form>
  );
}
