import { useSignal } from '@preact/signals';
import { api } from '../../lib/api.ts';
import { TextField } from '../../lib/fields.tsx';
import { ErrorNotice, Field } from '../../lib/ui.tsx';
import { EventTypePicker, SecretOnce } from './event-types.tsx';
import { type Endpoint, newSecret } from './types.ts';

/**
 * Registers an endpoint: its URL and event types. The signing secret is made here and shown once after
 * the endpoint is created; the service never answers it again.
 */
export function CreateEndpointForm(props: { onCreated: (endpoint: Endpoint) => void }) {
  const url = useSignal('');
  const description = useSignal('');
  const eventTypes = useSignal<string[] | null>(null);
  const error = useSignal<unknown>(undefined);
  const problem = useSignal<string | undefined>(undefined);
  const busy = useSignal(false);
  const shown = useSignal<string | undefined>(undefined);
  return (
    <form
      class="webhooks-form"
      aria-labelledby="create-webhook-title"
      onSubmit={async (event) => {
        event.preventDefault();
        if (eventTypes.value !== null && eventTypes.value.length === 0) {
          problem.value = 'Check at least one event type, or choose all events.';
          return;
        }
        problem.value = undefined;
        error.value = undefined;
        busy.value = true;
        const secret = newSecret();
        try {
          const { data } = await api.POST('/v1/webhooks', {
            body: {
              url: url.value.trim(),
              secret,
              eventTypes: eventTypes.value,
              description: description.value.trim(),
            },
          });
          shown.value = secret;
          url.value = '';
          description.value = '';
          eventTypes.value = null;
          props.onCreated(data);
        } catch (caught) {
          error.value = caught;
        } finally {
          busy.value = false;
        }
      }}
    >
      <h2 id="create-webhook-title">Add an endpoint</h2>
      {shown.value === undefined ? null : (
        <SecretOnce
          secret={shown.value}
          onDone={() => {
            shown.value = undefined;
          }}
        />
      )}
      <Field
        label="Endpoint URL"
        id="webhook-url"
        hint="Where the service POSTs each event, signed; https in production"
      >
        <input
          id="webhook-url"
          type="url"
          required
          value={url.value}
          aria-describedby="webhook-url-hint"
          placeholder="https://example.com/hooks/svc"
          onInput={(event) => {
            url.value = event.currentTarget.value;
          }}
        />
      </Field>
      <TextField
        label="Description (optional)"
        id="webhook-description"
        hint="What it is for, e.g. Order service (prod)"
        value={description}
        maxLength={500}
      />
      <EventTypePicker
        id="webhook-types"
        value={eventTypes.value}
        onChange={(value) => {
          eventTypes.value = value;
        }}
      />
      {problem.value === undefined ? null : (
        <p class="field-error" role="alert">
          {problem.value}
        </p>
      )}
      {error.value === undefined ? null : <ErrorNotice error={error.value} />}
      <button type="submit" disabled={busy.value}>
        Add endpoint
      </button>
    </form>
  );
}
