import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { Listing, Pager } from '../../lib/list.tsx';
import { useLoad } from '../../lib/load.ts';
import { Link, tenantPath, tenantRoute } from '../../lib/router.tsx';
import { ConfirmButton, EmptyState, ErrorNotice, Field, Table, Time } from '../../lib/ui.tsx';
import { fieldErrors, optional } from './form-errors.ts';

function tenantId(): string {
  return tenantRoute.value?.tenantId ?? '';
}

/** Delete an operator with its builds and product keys (confirmed first). */
export function DeleteOperator(props: { operator: { id: string; name: string }; done: () => void }) {
  return (
    <ConfirmButton
      label={`Delete ${props.operator.name}`}
      confirm={`Delete the operator ${props.operator.name}? Its builds and product keys are deleted too, and its apps stop working.`}
      onConfirm={async () => {
        await api.DELETE('/api/console/tenants/{tenantId}/operators/{operatorId}', {
          params: { path: { tenantId: tenantId(), operatorId: props.operator.id } },
        });
        props.done();
      }}
    />
  );
}

function CreateOperator(props: { created: () => void }) {
  const error = useSignal<unknown>(undefined);
  const errors = fieldErrors(error.value);
  return (
    <form
      class="commerce-form"
      aria-labelledby="operator-create-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const form = event.currentTarget;
        const data = new FormData(form);
        error.value = undefined;
        try {
          const appName = optional(data.get('appName'));
          await api.POST('/api/console/tenants/{tenantId}/operators', {
            params: { path: { tenantId: tenantId() } },
            body: {
              name: optional(data.get('name')) ?? '',
              slug: optional(data.get('slug')) ?? '',
              ...(appName === undefined ? {} : { app: { appName } }),
            },
          });
          form.reset();
          props.created();
        } catch (caught) {
          error.value = caught;
        }
      }}
    >
      <h3 id="operator-create-title">New operator</h3>
      <Field label="Name" id="operator-name" error={errors.name}>
        <input id="operator-name" name="name" required />
      </Field>
      <Field
        label="Slug"
        id="operator-slug"
        hint="Lower-case letters, digits and single hyphens"
        error={errors.slug}
      >
        <input id="operator-slug" name="slug" required />
      </Field>
      <Field
        label="App name"
        id="operator-app-name"
        hint="Optional, at most 30 characters"
        error={errors['app.appName']}
      >
        <input id="operator-app-name" name="appName" />
      </Field>
      <button type="submit">Create operator</button>
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
    </form>
  );
}

/** The tenant's operators: list, create, delete; each links to its page (edit, mobile builds). */
export function Operators() {
  const cursor = useSignal<string | undefined>(undefined);
  const operators = useLoad(async () => {
    const { data } = await api.GET('/api/console/tenants/{tenantId}/operators', {
      params: {
        path: { tenantId: tenantId() },
        query: { limit: 25, ...(cursor.value === undefined ? {} : { cursor: cursor.value }) },
      },
    });
    return data;
  }, [cursor.value]);
  const reload = () => void operators.reload();
  return (
    <section class="commerce-panel" aria-labelledby="operators-title">
      <h2 id="operators-title">Operators</h2>
      <Listing
        load={operators}
        what="operators"
        empty={
          <EmptyState title="No operators yet.">
            <p>
              An operator is a business you run a white-label app for: create one below, then build its app.
            </p>
          </EmptyState>
        }
      >
        {(page) => (
          <>
            <Table
              caption="Operators, newest first"
              hideCaption
              head={['Operator', 'Slug', 'App', 'Created', 'Actions']}
            >
              {page.data.map((operator) => (
                <tr key={operator.id}>
                  <td>
                    <Link to={tenantPath(`storefront/operators/${encodeURIComponent(operator.id)}`)}>
                      {operator.name}
                    </Link>
                  </td>
                  <td>{operator.slug}</td>
                  <td>{operator.app.appName ?? '—'}</td>
                  <td>
                    <Time value={operator.createdAt} />
                  </td>
                  <td>
                    <DeleteOperator operator={operator} done={reload} />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              class="commerce-pager"
              of="operators"
              cursor={cursor.value}
              next={page.nextCursor}
              go={(to) => {
                cursor.value = to;
              }}
            />
          </>
        )}
      </Listing>
      <CreateOperator created={reload} />
    </section>
  );
}
