import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { navigate, tenantPath } from '../../lib/router.tsx';
import { ConfirmButton, ErrorNotice, Time } from '../../lib/ui.tsx';
import { endpointStatus } from './endpoints.tsx';
import { EventTypePicker, SecretOnce } from './event-types.tsx';
import { type Endpoint, eventTypesLabel, newSecret } from './types.ts';

/** How long the old secret keeps signing after a rotation, so receivers can switch without a gap. */
const ROTATION_GRACE_SECONDS = 86_400;

/** An endpoint's event types, shown, and changed with the picker. */
function EventTypesEditor(props: { endpoint: Endpoint; onSaved: (endpoint: Endpoint) => void }) {
  const editing = useSignal(false);
  const value = useSignal<string[] | null>(props.endpoint.eventTypes);
  const error = useSignal<unknown>(undefined);
  if (!editing.value) {
    return (
      <p>
        <strong>Event types:</strong> {eventTypesLabel(props.endpoint.eventTypes)}{' '}
        <button
          type="button"
          class="secondary"
          onClick={() => {
            value.value = props.endpoint.eventTypes;
            editing.value = true;
          }}
        >
          Edit event types
        </button>
      </p>
    );
  }
  return (
    <form
      class="webhooks-form"
      aria-label="Edit event types"
      onSubmit={async (event) => {
        event.preventDefault();
        error.value = undefined;
        try {
          const { data } = await api.PATCH('/v1/webhooks/{webhookId}', {
            params: { path: { webhookId: props.endpoint.id } },
            body: { eventTypes: value.value },
          });
          editing.value = false;
          props.onSaved(data);
        } catch (caught) {
          error.value = caught;
        }
      }}
    >
      <EventTypePicker
        id="edit-webhook-types"
        value={value.value}
        onChange={(next) => {
          value.value = next;
        }}
      />
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      <button type="submit" disabled={value.value !== null && value.value.length === 0}>
        Save event types
      </button>{' '}
      <button type="button" class="secondary" onClick={() => (editing.value = false)}>
        Cancel
      </button>
    </form>
  );
}

/** What an endpoint is and what can be done to it: enable or disable, event types, secret, test, delete. */
export function EndpointSettings(props: { endpoint: Endpoint; onChanged: (endpoint: Endpoint) => void }) {
  const { endpoint } = props;
  const secret = useSignal<string | undefined>(undefined);
  const notice = useSignal<string | undefined>(undefined);
  const error = useSignal<unknown>(undefined);
  const act = async (run: () => Promise<unknown>) => {
    error.value = undefined;
    notice.value = undefined;
    try {
      await run();
    } catch (caught) {
      error.value = caught;
    }
  };
  const path = { params: { path: { webhookId: endpoint.id } } };
  return (
    <section aria-labelledby="endpoint-settings-title" class="webhooks-settings">
      <h2 id="endpoint-settings-title">Endpoint</h2>
      <p>
        <strong>Status:</strong> {endpointStatus(endpoint)} · <strong>Created</strong>{' '}
        <Time value={endpoint.createdAt} />
        {endpoint.previousSecretExpiresAt === null ? null : (
          <>
            {' '}
            · the previous secret also signs until <Time value={endpoint.previousSecretExpiresAt} />
          </>
        )}
      </p>
      {endpoint.description === '' ? null : (
        <p>
          <strong>Description:</strong> {endpoint.description}
        </p>
      )}
      <EventTypesEditor endpoint={endpoint} onSaved={props.onChanged} />
      {secret.value === undefined ? null : (
        <SecretOnce secret={secret.value} onDone={() => (secret.value = undefined)} />
      )}
      {notice.value === undefined ? null : (
        <p class="notice ok" role="status">
          {notice.value}
        </p>
      )}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      <div class="webhooks-actions">
        <button
          type="button"
          class="secondary"
          onClick={() =>
            act(async () => {
              const { data } = await api.PATCH('/v1/webhooks/{webhookId}', {
                ...path,
                body: { enabled: !endpoint.enabled },
              });
              props.onChanged(data);
            })
          }
        >
          {endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!endpoint.enabled}
          onClick={() =>
            act(async () => {
              await api.POST('/v1/webhooks/{webhookId}/test', path);
              notice.value = 'A webhook.test event is on its way; it appears in the deliveries below.';
            })
          }
        >
          Send test event
        </button>
        <ConfirmButton
          label="Rotate secret"
          class="secondary"
          confirm="Make a new signing secret? The current one keeps signing for 24 hours, so update your receiver within a day."
          onConfirm={async () => {
            const next = newSecret();
            const { data } = await api.POST('/v1/webhooks/{webhookId}/rotate-secret', {
              ...path,
              body: { secret: next, graceSeconds: ROTATION_GRACE_SECONDS },
            });
            secret.value = next;
            props.onChanged(data);
          }}
        />
        <ConfirmButton
          label="Delete endpoint"
          confirm={`Delete the endpoint ${endpoint.url} and its whole delivery history? This cannot be undone.`}
          onConfirm={async () => {
            await api.DELETE('/v1/webhooks/{webhookId}', path);
            navigate(tenantPath('webhooks'));
          }}
        />
      </div>
    </section>
  );
}
