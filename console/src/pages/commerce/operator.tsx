import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { useLoad } from '../../lib/load.ts';
import { Link, navigate, tenantPath, tenantRoute } from '../../lib/router.tsx';
import { ErrorNotice, Field, Loading, Page } from '../../lib/ui.tsx';
import type { PageProps } from '../page.ts';
import { fieldErrors, optional } from './form-errors.ts';
import { Builds } from './operator-builds.tsx';
import { DeleteOperator } from './storefront-operators.tsx';
import type { Operator } from './types.ts';

const APP_FIELDS = [
  ['appName', 'App name', 'At most 30 characters'],
  ['androidPackage', 'Android package', 'e.g. com.example.shop'],
  ['iosBundleId', 'iOS bundle id', 'e.g. com.example.shop'],
] as const;

function EditOperator(props: { operator: Operator; saved: (operator: Operator) => void }) {
  const { operator } = props;
  const error = useSignal<unknown>(undefined);
  const done = useSignal(false);
  const errors = fieldErrors(error.value);
  return (
    <form
      class="commerce-form"
      aria-labelledby="operator-edit-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        error.value = undefined;
        done.value = false;
        const app = { ...operator.app };
        for (const [key] of APP_FIELDS) {
          const value = optional(form.get(key));
          if (value === undefined) delete app[key];
          else app[key] = value;
        }
        try {
          const { data } = await api.PATCH('/api/console/tenants/{tenantId}/operators/{operatorId}', {
            params: { path: { tenantId: tenantRoute.value?.tenantId ?? '', operatorId: operator.id } },
            body: { name: optional(form.get('name')) ?? '', slug: optional(form.get('slug')) ?? '', app },
          });
          done.value = true;
          props.saved(data);
        } catch (caught) {
          error.value = caught;
        }
      }}
    >
      <h2 id="operator-edit-title">Details</h2>
      <Field label="Name" id="operator-edit-name" error={errors.name}>
        <input id="operator-edit-name" name="name" defaultValue={operator.name} required />
      </Field>
      <Field label="Slug" id="operator-edit-slug" error={errors.slug}>
        <input id="operator-edit-slug" name="slug" defaultValue={operator.slug} required />
      </Field>
      {APP_FIELDS.map(([key, label, hint]) => (
        <Field label={label} id={`operator-edit-${key}`} hint={hint} key={key} error={errors[`app.${key}`]}>
          <input id={`operator-edit-${key}`} name={key} defaultValue={operator.app[key] ?? ''} />
        </Field>
      ))}
      <button type="submit">Save operator</button>
      {done.value ? (
        <p class="notice ok" role="status">
          Operator saved.
        </p>
      ) : null}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </form>
  );
}

/** One operator: edit it, delete it, and its app's mobile builds. */
export function OperatorPage(props: PageProps) {
  const operatorId = props.params.operatorId ?? '';
  const tenantId = tenantRoute.value?.tenantId ?? '';
  const operator = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/operators/{operatorId}', {
      params: { path: { tenantId, operatorId } },
    });
    return data;
  }, [tenantId, operatorId]);
  const current = operator.data.value;
  return (
    <Page title={current === undefined ? `Operator ${operatorId}` : `Operator ${current.name}`}>
      <p>
        <Link to={tenantPath('storefront')}>Storefront and operators</Link>
      </p>
      {operator.error.value === undefined ? null : <ErrorNotice error={operator.error.value} />}
      {current === undefined ? (
        operator.loading.value ? (
          <Loading what="the operator" />
        ) : null
      ) : (
        <>
          <EditOperator
            operator={current}
            saved={(saved) => {
              operator.data.value = saved;
            }}
          />
          <p>
            <DeleteOperator operator={current} done={() => navigate(tenantPath('storefront'))} />
          </p>
          <Builds operatorId={current.id} />
        </>
      )}
    </Page>
  );
}
